/**
 * The tester on a service it did not write: json-server (a dev dependency; typicode's
 * fake REST API), described as it is by examples/json-server.yaml. Its findings are only
 * genuine deviations, each named here: json-server validates nothing, and answers a body
 * that is not JSON, or over its own 100 KiB limit, with 500. Everything else the spec
 * states (bare-array lists, numbered pages in its envelope with the total, `_sort`, 404
 * for undeclared methods, `{"error": …}` bodies, kept members, ignored ids) passes. The
 * same spec served by svcspec passes every check, and the run leaves json-server's data as
 * it found it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { freePort, killAll } from '../support/child-server.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';

const JSON_SERVER = fileURLToPath(new URL('../../node_modules/json-server/lib/bin.js', import.meta.url));

/** The deviations of json-server 1.0.0-beta from what the spec states, by check id. */
const DEVIATIONS = [
  // It validates nothing: every broken constraint is stored.
  'post.title.required', 'post.title.type-string', 'post.title.minLength', 'post.title.maxLength', 'post.views.type-integer', 'post.views.minimum',
  // A body that is not JSON, or not application/json, is a 500 (its JSON parser throws).
  'malformed-body', 'unsupported-media-type',
  // Its body parser's 100 KiB limit throws too: 500, not 413.
  'body-size',
  // It reads any query parameter as a condition on a member, and never refuses one.
  'post.list.filter.undeclared',
];

test('conformance: json-server, described as it is, fails only where it truly deviates', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-json-server-'));
  const db = join(dir, 'db.json');
  writeFileSync(db, JSON.stringify({ posts: [] }));
  const port = await freePort();
  const child = spawn(process.execPath, [JSON_SERVER, db, '--port', String(port), '--host', '127.0.0.1'], { cwd: dir, stdio: 'ignore' });
  t.after(async () => {
    await killAll([child]);
    rmSync(dir, { recursive: true, force: true });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${baseUrl}/posts`).then((r) => r.ok, () => false);
    if (up) break;
    assert.ok(i < 100, 'json-server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const spec = await exampleSpec('json-server.yaml');
  // A long time-out per request: json-server writes its file on every change, and on a loaded
  // machine a create answered after the tester gave up on it (10 s) is one the run cannot
  // know to delete; the run must see every answer for its data to be left as it found it.
  const report = await runConformance({ spec, baseUrl, principals: [], seed: 7, timeoutMs: 60_000 });
  const failed = report.results.filter((r) => r.outcome === 'fail').map((r) => r.id);
  assert.deepEqual(failed.sort(), [...DEVIATIONS].sort(), formatHuman(report));
  // What json-server does as stated, and the tester checked.
  const passed = new Set(report.results.filter((r) => r.outcome === 'pass').map((r) => r.id));
  for (const id of ['post.create', 'post.unknown-field', 'post.readOnly', 'post.update', 'post.replace', 'post.delete', 'post.walk', 'post.default-size', '404 unknown path', 'post.list.filter.views:gte', 'post.list.filter.views:lt', 'post.list.filter.views:in', 'post.list.filter.title']) {
    assert.ok(passed.has(id), `${id} should pass against json-server:\n${formatHuman(report)}`);
  }
  assert.ok([...passed].some((id) => id.startsWith('405 ')), 'undeclared methods, answered 404 as stated, were checked');
  // The records it wrongly accepted were deleted with the rest: json-server's data is as it was.
  assert.deepEqual(await (await fetch(`${baseUrl}/posts`)).json(), [], 'json-server lists no post');
  // json-server writes its file after it answers: wait for it (a loaded machine may take a while).
  const posts = () => (JSON.parse(readFileSync(db, 'utf8')) as { posts: unknown[] }).posts;
  for (let i = 0; i < 100 && posts().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(posts(), []);
});

test('conformance: svcspec serve of the json-server spec passes every check', async (t) => {
  const spec = await exampleSpec('json-server.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(report.counts.pass >= 20, formatHuman(report));
});
