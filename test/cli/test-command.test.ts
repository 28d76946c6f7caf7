/**
 * `svcspec test` end to end: the CLI tests `svcspec serve` running as a real process, with
 * credentials issued by `svcspec credentials`, and reports in the three formats.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, killAll, ROOT, startServe } from '../support/child-server.ts';

test('cli: svcspec test passes against svcspec serve, and reports in json and junit', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-test-cmd-'));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });
  const spec = join(ROOT, 'test/serve/fixtures/notes.yaml');
  const server = await startServe([spec, '--port', '0', '--db', join(dir, 'notes.db'), '--quiet']);
  children.push(server.child);
  const human = cli(['test', spec, '--base-url', server.url, '--seed', '5']);
  assert.equal(human.status, 0, human.stdout + human.stderr);
  assert.match(human.stdout, /^svcspec test http:\/\/127\.0\.0\.1:\d+ \(seed 5; replay with --seed 5\)/);
  assert.match(human.stdout, /PASS: \d+ passed, 0 failed/);
  const json = cli(['test', spec, '--base-url', server.url, '--format', 'json', '--only', 'resources,errors']);
  assert.equal(json.status, 0);
  const report = JSON.parse(json.stdout) as { counts: { fail: number; pass: number }; results: { part: string }[] };
  assert.equal(report.counts.fail, 0);
  assert.deepEqual([...new Set(report.results.map((r) => r.part))].sort(), ['errors', 'resources']);
  const junit = join(dir, 'report.xml');
  assert.equal(cli(['test', spec, '--base-url', server.url, '--format', 'junit', '-o', junit]).status, 0);
  assert.match(readFileSync(junit, 'utf8'), /^<\?xml[\s\S]*<testsuite name="2\. resources" tests="\d+" failures="0"/);
  // The spellings test had before every command said -o/--output and --format still work.
  const old = join(dir, 'old.json');
  assert.equal(cli(['test', spec, '--base-url', server.url, '--report', 'json', '--out', old, '--only', 'errors']).status, 0);
  assert.equal((JSON.parse(readFileSync(old, 'utf8')) as { counts: { fail: number } }).counts.fail, 0);
});

test('cli: svcspec test refuses bad usage with exit 2, an unreachable service with exit 1, and the founding document has nothing to check', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-test-cmd-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const spec = join(ROOT, 'test/serve/fixtures/notes.yaml');
  assert.equal(cli(['test', spec]).status, 2);
  const part = cli(['test', spec, '--base-url', 'http://127.0.0.1:9', '--only', 'resorces']);
  assert.equal(part.status, 2);
  assert.match(part.stderr, /'resorces' is not a part\. Did you mean 'resources'\?/);
  const down = cli(['test', spec, '--base-url', 'http://127.0.0.1:9']);
  assert.equal(down.status, 1);
  assert.match(down.stderr, /could not be reached/);
  assert.ok(!/\n\s+at .+:\d+:\d+/.test(down.stderr), 'no stack trace');
  const empty = join(dir, 'empty.yaml');
  writeFileSync(empty, 'svcspec: 1\n');
  const nothing = cli(['test', empty, '--base-url', 'http://127.0.0.1:9']);
  assert.equal(nothing.status, 1);
  assert.match(nothing.stdout, /A tester has nothing to check/);
});
