/**
 * The real PostgreSQL (and Redis) the scale-out tests run on: 127.0.0.1:5432, trust
 * authentication, database `test` (SVCSPEC_TEST_DATABASE_URL overrides it). Each test gets
 * a schema of its own, dropped when the file's tests end.
 *
 * Without a reachable server the tests that need it are skipped LOUDLY: the skip names
 * what is skipped and why, and is printed as well. Under CI=true a missing server is a
 * failure, not a skip: CI starts the servers (.ci/run).
 */
import { after, test } from 'node:test';
import postgres from 'postgres';
import { connect } from 'node:net';

export const TEST_DATABASE_URL = process.env.SVCSPEC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.SVCSPEC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function reachable(url: string): Promise<string | undefined> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Whether a TCP port answers (Redis: the test speaks to it through the code under test). */
async function portOpen(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(3000, () => { socket.destroy(); resolve('timed out'); });
    socket.on('connect', () => { socket.end(); resolve(undefined); });
    socket.on('error', (e) => resolve(e.message));
  });
}

/**
 * Why the PostgreSQL tests of `what` cannot run (undefined: they can). Under CI=true a
 * missing server registers a failing test instead, so the run cannot pass by skipping.
 */
export async function postgresUnavailable(what: string): Promise<string | undefined> {
  const problem = await reachable(TEST_DATABASE_URL);
  return loudly(what, problem && `no PostgreSQL at ${TEST_DATABASE_URL} (${problem}); start it: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`);
}

export async function redisUnavailable(what: string): Promise<string | undefined> {
  const problem = await portOpen(TEST_REDIS_URL);
  return loudly(what, problem && `no Redis at ${TEST_REDIS_URL} (${problem}); start it: redis-server --daemonize yes --port 6379 --save ""`);
}

function loudly(what: string, reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  if (process.env.CI === 'true') {
    test(`${what} (needs a server)`, () => {
      throw new Error(`CI=true and ${reason}: CI must run these tests, not skip them`);
    });
    return reason;
  }
  const message = `SKIPPED: ${what}: ${reason}`;
  console.warn(`\n*** ${message} ***\n`);
  return message;
}

let made = 0;
const schemas: string[] = [];

// Registered when a test file imports this module, so at the top level of the file: it runs
// once after all of the file's tests (an `after` called inside a test would belong to that test).
after(async () => {
  if (schemas.length === 0) return;
  const dropper = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    for (const s of schemas.splice(0)) await dropper.unsafe(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await dropper.end({ timeout: 1 });
  }
});

/** A URL of a new, empty schema of the test database; every one is dropped after the file's tests. */
export function freshSchemaUrl(): string {
  const schema = `svcspec_t${process.pid}_${Date.now().toString(36)}_${made++}`;
  schemas.push(schema);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('schema', schema);
  return url.toString();
}
