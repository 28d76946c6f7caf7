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
  const addresses = cli(['test', spec, '--base-url', 'http://127.0.0.1:9', '--client-addresses', '127.0.0.2,here']);
  assert.equal(addresses.status, 2);
  assert.match(addresses.stderr, /--client-addresses takes auto, none or a comma-separated list of IP addresses; '127\.0\.0\.2,here' is not\./);
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

const KEYED = `svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [write a note]}]}
resources:
  note:
    plural: notes
    owned: true
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      text: {type: string, required: true, minLength: 1, maxLength: 50}
states: {none: No life cycle.}
endpoints:
  note: [create, read, list, delete]
authentication:
  obtain: Run svcspec credentials create.
  schemes:
    key: {type: apiKey, in: header, name: X-Notes-Key}
  scopes: {notes:read: Read notes., notes:write: Write notes.}
  default: {scopes: [notes:read]}
  require: {note.create: [notes:write], note.delete: [notes:write]}
events: {none: No events.}
errors: {shape: problem, catalog: {unauthenticated: {status: 401, title: Unauthenticated}, forbidden: {status: 403, title: Forbidden}, not-found: {status: 404, title: Not found}, validation-failed: {status: 422, title: Invalid}}}
limits: {none: No limits.}
versioning: {none: One version.}
`;

test('cli: svcspec test exits 1 when a part asked for could not be checked (--allow-skips accepts it), redacts credentials, and records every exchange', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-test-cmd-'));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });
  const spec = join(dir, 'notes.yaml');
  writeFileSync(spec, KEYED);
  const created = cli(['credentials', 'create', '--spec', spec, '--scheme', 'key', '--scopes', 'notes:read,notes:write', '--principal', 'ann']);
  assert.equal(created.status, 0, created.stderr);
  const key = /^X-Notes-Key: (\S+)$/m.exec(created.stdout)?.[1];
  assert.ok(key, created.stdout);
  const server = await startServe([spec, '--port', '0', '--quiet']);
  children.push(server.child);
  // One principal holding every scope: the 403s and ownership cannot be checked.
  const base = ['test', spec, '--base-url', server.url, '--header', `X-Notes-Key: ${key}`, '--seed', '11'];
  const run = cli([...base, '--record', join(dir, 'run.ndjson')]);
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^INCOMPLETE: \d+ passed, 0 failed, \d+ not checked/m);
  assert.match(run.stdout, /not checked: note is owned: .*needs a second principal that may call every endpoint of note/);
  assert.match(run.stdout, /To check the rest, give: .*a credential \(with its scopes listed in --credentials\) lacking notes:write/);
  assert.match(run.stderr, /could not be checked .* --allow-skips accepts that/);
  // Not a terminal: plain progress lines, one per part.
  assert.match(run.stderr, /^svcspec: 2\/9 resources: \d+ passed, 0 failed, \d+ not checked, \d+ not applicable or not asked \([\d.]+ s\)$/m);
  const allowed = cli([...base, '--allow-skips', '--format', 'json']);
  assert.equal(allowed.status, 0, allowed.stderr);
  const report = JSON.parse(allowed.stdout) as { verdict: string; counts: { notChecked: number }; parts: { part: string; verdict: string; needs: string[] }[] };
  assert.equal(report.verdict, 'incomplete');
  assert.ok(report.counts.notChecked > 0);
  assert.equal(report.parts.find((p) => p.part === 'authentication')?.verdict, 'incomplete');
  assert.ok(!allowed.stdout.includes(key), 'the JSON report redacts the key');
  // The record: every exchange, the key redacted; as HAR when the file ends in .har.
  const lines = readFileSync(join(dir, 'run.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: { method: string; headers: Record<string, string> }; response: { status: number } });
  assert.ok(lines.length > 20, `${lines.length} exchanges recorded`);
  assert.ok(lines.some((l) => l.request.headers['x-notes-key'] === '<redacted>'));
  assert.ok(!readFileSync(join(dir, 'run.ndjson'), 'utf8').includes(key));
  const har = join(dir, 'run.har');
  assert.equal(cli([...base, '--only', 'resources', '--allow-skips', '--record', har, '--show-secrets']).status, 0);
  const log = (JSON.parse(readFileSync(har, 'utf8')) as { log: { version: string; creator: { name: string }; entries: { request: { method: string; url: string; headers: { name: string; value: string }[] }; response: { status: number; content: { mimeType: string } } }[] } }).log;
  assert.equal(log.version, '1.2');
  assert.equal(log.creator.name, 'svcspec');
  assert.ok(log.entries.some((e) => e.request.method === 'POST' && e.response.status === 201 && e.response.content.mimeType.startsWith('application/json')));
  assert.ok(log.entries.some((e) => e.request.headers.some((h) => h.name === 'x-notes-key' && h.value === key)), '--show-secrets keeps the key');
});

test('cli: svcspec test refuses a spec that check rejects, exit 2, saying why', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-test-cmd-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bad = join(dir, 'bad.yaml');
  // It loads; only the checker sees that no value satisfies the field.
  writeFileSync(bad, readFileSync(join(ROOT, 'test/serve/fixtures/notes.yaml'), 'utf8').replace('n: { type: integer, minimum: 0 }', 'n: { type: integer, minimum: 5, maximum: 1 }'));
  const r = cli(['test', bad, '--base-url', 'http://127.0.0.1:9']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /field-range-inverted/);
  assert.match(r.stderr, /cannot test against '.*bad\.yaml': the spec has 1 error \(svcspec check .* lists them\)/);
});
