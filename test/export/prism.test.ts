/**
 * Conformance judged by a third party: Stoplight Prism, in validation-proxy mode in front of
 * `svcspec serve`, checks every request and every response against the OpenAPI export
 * (toOpenApi) of the same spec, and says what does not fit in its `sl-violations` header
 * (https://docs.stoplight.io/docs/prism/docs/guides/03-validation-proxy.md). A scripted client
 * (./scripted-client.ts) calls every endpoint through the proxy: no exchange it meant as
 * valid may have a violation, and one the export itself forbids may have request violations
 * only: what the service answers to it fits the export too.
 *
 * Prism runs without --errors: with it, Prism answers an invalid request itself instead of
 * forwarding it, and then the service's answer to it would go unchecked.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { toOpenApi } from '../../src/export/index.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders } from '../serve/support/credentials.ts';
import { EXAMPLES } from '../serve/support/open-app.ts';
import { freePort, killAll, startServe } from '../support/child-server.ts';
import { ScriptedClient, type Exchange, type Violation } from './scripted-client.ts';
import { example } from './support.ts';

const PRISM = fileURLToPath(import.meta.resolve('@stoplight/prism-cli/dist/index.js'));

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  /** What it printed so far, for failure messages. */
  readonly log: () => string;
}

/** `prism proxy FILE UPSTREAM` on a free port, under the Node that runs the tests. */
async function startPrism(document: string, upstream: string): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, 'proxy', document, upstream, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Prism did not start within 60 s:\n${out}`));
    }, 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code}:\n${out}`));
    });
  });
  return { child, url, log: () => out };
}

/** The service for an example on a free port, and Prism in front of it, reading the document made of the spec from a file. */
async function proxied(t: TestContext, name: string, documentOf: (spec: Spec) => Record<string, unknown>): Promise<{ spec: Spec; auth: Record<string, string>; prism: Running }> {
  const spec = await example(`${name}.yaml`);
  const dir = mkdtempSync(join(tmpdir(), `svcspec-prism-${name}-`));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(documentOf(spec)));
  // A file, not :memory:, so that credentials can be issued before the service opens it.
  const db = join(dir, 'service.db');
  const store = await openSqliteStore({ path: db });
  const auth = await credentialHeaders(spec, store);
  await store.close();
  const service = await startServe([join(EXAMPLES, `${name}.yaml`), '--port', '0', '--db', db, '--durability', 'normal', '--quiet']);
  children.push(service.child);
  const prism = await startPrism(file, service.url);
  children.push(prism.child);
  return { spec, auth, prism };
}

/**
 * Prism checks multipleOf by dividing in binary floating point (its Ajv has no
 * multipleOfPrecision), so it refuses 19.99 as a multiple of 0.01 (19.99 / 0.01 is
 * 1998.9999999999998 in IEEE 754). JSON numbers are decimal, and 19.99 is one; the service
 * reads them so on purpose (src/serve/validation.ts, multipleOfPrecision). Such a violation is
 * recognised exactly, the value at its location checked to be a decimal multiple in integer
 * arithmetic, and it is counted and reported: a limit of the third party, not a fault of the
 * export or of the service. Any other violation fails the test.
 */
function binaryFloatArtifact(x: Exchange, v: Violation): boolean {
  const divisor = /must be multiple of (\S+)$/.exec(v.message)?.[1];
  const value = valueAt(x, v);
  return divisor !== undefined && typeof value === 'number' && decimalMultiple(String(value), divisor);
}

/** The value a violation of a request or response body points at. */
function valueAt(x: Exchange, v: Violation): unknown {
  if (v.location[1] !== 'body') return undefined;
  let value: unknown = v.location[0] === 'request' ? x.sent : x.body;
  for (const key of v.location.slice(2)) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

/** Whether a decimal numeral is a whole multiple of another, in exact integer arithmetic. */
function decimalMultiple(value: string, divisor: string): boolean {
  if (!/^-?\d+(\.\d+)?$/.test(value) || !/^\d+(\.\d+)?$/.test(divisor)) return false;
  const places = Math.max(value.split('.')[1]?.length ?? 0, divisor.split('.')[1]?.length ?? 0);
  const scaled = (s: string) => BigInt(s.split('.')[0] + (s.split('.')[1] ?? '').padEnd(places, '0'));
  const d = scaled(divisor);
  return d !== 0n && scaled(value) % d === 0n;
}

function show(x: Exchange): string {
  return `${x.endpoint}: ${x.what}: ${x.method} ${x.path} -> ${x.status}${x.violations.length ? `\n    ${x.violations.map((v) => `${v.location.join('.')}: ${v.message}`).join('\n    ')}` : ''}`;
}

for (const name of ['library', 'helpdesk', 'orders', 'json-server']) {
  test(`prism: every endpoint of ${name} through the validation proxy, with no violation of the export`, { timeout: 120_000 }, async (t) => {
    const { spec, auth, prism } = await proxied(t, name, (s) => toOpenApi(s).document);
    const client = new ScriptedClient(spec, prism.url, auth);
    try {
      await client.run();
    } catch (error) {
      throw new Error(`${(error as Error).message}\nexchanges so far:\n${client.exchanges.map(show).join('\n')}\nPrism's log (end):\n${prism.log().slice(-3000)}`);
    }
    const xs = client.exchanges;
    if (process.env.SVCSPEC_PRISM_LOG) console.log(`${xs.map(show).join('\n')}\n${prism.log()}`);

    const wrongStatus = xs.filter((x) => (x.expected === 'success' ? x.status < 200 || x.status > 299 : x.status !== x.expected));
    assert.deepEqual(wrongStatus.map(show), [], 'every exchange answered as the script expects');
    const artifacts = xs.flatMap((x) => x.violations.filter((v) => binaryFloatArtifact(x, v)).map((v) => `${x.endpoint} ${v.location.join('.')} = ${valueAt(x, v)}: ${v.message}`));
    const real = (x: Exchange) => x.violations.filter((v) => !binaryFloatArtifact(x, v));
    const flagged = xs.filter((x) => x.intent === 'valid' && real(x).length > 0);
    assert.deepEqual(flagged.map(show), [], 'Prism found no violation in any valid exchange');
    for (const x of xs.filter((y) => y.intent === 'invalid-request')) {
      assert.ok(real(x).length > 0, `Prism saw that the request breaks the export: ${show(x)}`);
      assert.deepEqual(real(x).filter((v) => v.location[0] !== 'request').map((v) => `${v.location.join('.')}: ${v.message}`), [], `only the request is at fault: ${show(x)}`);
    }

    const served = spec.endpoints.map((e) => e.id).sort();
    const exercised = [...new Set(xs.filter((x) => x.intent === 'valid' && (x.status < 300 || x.status === 304) && real(x).length === 0).map((x) => x.endpoint))].sort();
    assert.deepEqual(exercised, served, 'every endpoint answered a valid request successfully, and Prism agreed');
    const other = xs.filter((x) => typeof x.expected === 'number' && x.expected >= 300);
    t.diagnostic(`${name}: ${xs.length} exchanges through Prism (${other.length} answered, as meant, with ${[...new Set(other.map((x) => x.status))].sort().join(', ')}), ${exercised.length} of ${served.length} endpoints, no violation of the export${artifacts.length ? ` but ${artifacts.length} of Prism's own (below)` : ''}`);
    if (artifacts.length) t.diagnostic(`${name}: ${artifacts.length} multipleOf violation(s) of Prism's binary floating point, on decimal multiples: ${artifacts.join('; ')}`);
  });
}

test('prism: the proxy does report a response that does not fit (a control: the export made to require a member the service never sends)', { timeout: 120_000 }, async (t) => {
  const { auth, prism } = await proxied(t, 'library', (spec) => {
    const document = toOpenApi(spec).document as { components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> } };
    const book = document.components.schemas.Book;
    book.properties = { ...book.properties, shelfMark: { type: 'string' } };
    book.required = [...(book.required ?? []), 'shelfMark'];
    return document;
  });
  const made = await fetch(`${prism.url}/books`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Dune', authors: ['Frank Herbert'] }) });
  assert.equal(made.status, 201);
  const violations = JSON.parse(made.headers.get('sl-violations') ?? '[]') as { location: string[]; message: string }[];
  assert.ok(violations.some((v) => v.location[0] === 'response' && /shelfMark/.test(v.message)), JSON.stringify(violations));
});
