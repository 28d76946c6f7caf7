/**
 * Where the CLI's data is (src/cli/database.ts): `--db` first, else SVCSPEC_DATABASE_URL,
 * else the SQLite file beside the spec; serve, credentials and webhooks alike. On a real
 * PostgreSQL (skipped loudly without one; failed under CI=true): a key issued through the
 * environment works on an instance started through it, and a revocation made with `--db`
 * while it runs is seen by it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { BIN, ROOT, servingUrl, specInTempDir } from '../support/child-server.ts';
import { freshSchemaUrl, postgresUnavailable } from '../support/postgres.ts';

const SPEC = `svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [write a note]}]}
resources:
  note:
    plural: notes
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      text: {type: string, required: true}
states: {none: No life cycle.}
endpoints:
  note: [create, read, list]
authentication:
  obtain: Run svcspec credentials create.
  schemes:
    key: {type: apiKey, in: header, name: X-Notes-Key}
  scopes: {notes:read: Read notes.}
  default: {scopes: [notes:read]}
events: {none: No events.}
errors: {shape: problem, catalog: {unauthenticated: {status: 401, title: Unauthenticated}}}
limits: {none: No limits.}
versioning: {none: One version.}
`;

const unavailable = await postgresUnavailable('the CLI on a PostgreSQL database (test/cli/database.test.ts)');

function run(args: readonly string[], env: Record<string, string | undefined> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the CLI on PostgreSQL', { skip: unavailable ?? false }, () => {
  test('a key issued through SVCSPEC_DATABASE_URL works on an instance started through it; a revocation with --db reaches it', { timeout: 120_000 }, async (t) => {
    const { spec, children } = specInTempDir(t, SPEC);
    const db = freshSchemaUrl();
    const issued = run(['credentials', 'create', '--spec', spec, '--scopes', 'notes:read', '--format', 'json'], { SVCSPEC_DATABASE_URL: db });
    assert.equal(issued.status, 0, issued.stderr);
    const { id, usage } = JSON.parse(issued.stdout) as { id: string; usage: string[] };
    const key = usage[0]!.replace(/^X-Notes-Key: /, '');
    const child = spawn(process.execPath, [BIN, 'serve', spec, '--port', '0', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SVCSPEC_DATABASE_URL: db } });
    children.push(child);
    // The key exists only in that schema: a 200 says the instance found the database through the environment.
    const { url } = await servingUrl(child);
    const list = () => fetch(`${url}/notes`, { headers: { 'x-notes-key': key } }).then((r) => r.status);
    assert.equal(await list(), 200);
    const revoked = run(['credentials', 'revoke', id, '--spec', spec, '--db', db]);
    assert.equal(revoked.status, 0, revoked.stderr);
    // The instance caches a verified credential for a second: the revocation is seen after it.
    let status = 200;
    for (let i = 0; i < 50 && status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await list();
    }
    assert.equal(status, 401);
  });

  test('--db wins over SVCSPEC_DATABASE_URL', (t) => {
    const { spec } = specInTempDir(t, SPEC);
    const r = run(['credentials', 'list', '--spec', spec, '--db', freshSchemaUrl()], { SVCSPEC_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(r.status, 0, r.stderr);
  });
});

test('a PostgreSQL that cannot be reached is said in words, without a stack trace', (t) => {
  const { spec } = specInTempDir(t, SPEC);
  const r = run(['credentials', 'list', '--spec', spec], { SVCSPEC_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /PostgreSQL cannot be reached: .*127\.0\.0\.1:1.*Start the database, or check the URL/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('serve on a PostgreSQL that cannot be reached exits 2 (the option, not the spec) with the reason', (t) => {
  const { spec } = specInTempDir(t, SPEC);
  const r = run(['serve', spec, '--port', '0', '--db', 'postgres://nobody@127.0.0.1:1/none?schema=x']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /PostgreSQL cannot be reached: .*\(--db PostgreSQL postgres:\/\/nobody@127\.0\.0\.1:1\/none\?schema=x\)/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
