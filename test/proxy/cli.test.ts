/**
 * `svcspec proxy` end to end, as real processes over loopback: in front of `svcspec serve`
 * while `svcspec test` drives it (no findings; the summary, a SARIF report and a record on
 * SIGTERM; the record judged again by --replay), and in front of a service that breaks the
 * spec (a finding line as it happens with the rule at file:line:column, exit 1 on SIGINT).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, cli, killAll, ROOT, startServe } from '../support/child-server.ts';

const NOTES = join(ROOT, 'test/serve/fixtures/notes.yaml');

interface Proxy {
  readonly child: ChildProcess;
  readonly url: string;
  /** Sends the signal and resolves with the exit code and all it printed. */
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

async function startProxy(args: readonly string[]): Promise<Proxy> {
  const child = spawn(process.execPath, [BIN, 'proxy', ...args, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`proxy did not start:\n${stderr}`))), 30_000);
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /svcspec proxy: (http:\/\/[\d.]+:\d+) ->/.exec(stderr);
      if (m) (clearTimeout(timer), resolve(m[1]));
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`proxy exited with ${code}:\n${stderr}`))));
  });
  return {
    child,
    url,
    stop: (signal) => new Promise((resolve) => {
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
      child.kill(signal);
    }),
  };
}

test('cli: svcspec proxy in front of svcspec serve, driven by svcspec test: no findings, a summary, SARIF and a record on SIGTERM, the record replayed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-proxy-cli-'));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });
  const server = await startServe([NOTES, '--port', '0', '--db', join(dir, 'notes.db'), '--quiet']);
  children.push(server.child);
  const record = join(dir, 'traffic.ndjson');
  const sarif = join(dir, 'proxy.sarif');
  const proxy = await startProxy([NOTES, '--upstream', server.url, '--record', record, '--format', 'sarif', '-o', sarif]);
  children.push(proxy.child);
  const run = cli(['test', NOTES, '--base-url', proxy.url, '--seed', '3', '--format', 'json']);
  assert.equal(run.status, 0, run.stderr);
  const requests = (JSON.parse(run.stdout) as { requests: number }).requests;
  const stopped = await proxy.stop('SIGTERM');
  assert.equal(stopped.code, 0, stopped.stdout + stopped.stderr);
  // Into a pipe, the lines are NDJSON: no finding, then the summary.
  const summary = JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string) as { summary: { exchanges: number; findings: number; outside: number } };
  assert.equal(summary.summary.findings, 0, stopped.stdout);
  assert.equal(summary.summary.exchanges, requests, 'every request of the tester was judged');
  assert.ok(summary.summary.outside > 0, "the tester's deliberately wrong requests were seen as outside the spec");
  const report = JSON.parse(readFileSync(sarif, 'utf8')) as { version: string; runs: { tool: { driver: { name: string } }; results: unknown[] }[] };
  assert.equal(report.version, '2.1.0');
  assert.equal(report.runs[0].tool.driver.name, 'svcspec proxy');
  assert.deepEqual(report.runs[0].results, []);
  const lines = readFileSync(record, 'utf8').trim().split('\n');
  assert.equal(lines.length, requests, 'the record holds every exchange');
  const replayed = cli(['proxy', NOTES, '--replay', record, '--lines', 'human']);
  assert.equal(replayed.status, 0, replayed.stdout + replayed.stderr);
  assert.match(replayed.stdout, new RegExp(`replay of .*traffic\\.ndjson: ${requests.toLocaleString('en')} exchanges judged, 0 findings`));
});

test('cli: svcspec proxy reports a service that breaks the spec, a line per finding with the rule at file:line:column, exit 1; strict mode refuses a wrong request itself', async (t) => {
  // A service that gets a note wrong: an undeclared member, a status the spec does not declare, and an error in its own shape.
  const upstream = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/notes/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'a', text: 'x', colour: 'red' }));
    if (req.method === 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'b', text: 'y' }));
    res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    await new Promise((resolve) => upstream.close(resolve));
  });
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const proxy = await startProxy([NOTES, '--upstream', base, '--lines', 'human']);
  children.push(proxy.child);
  assert.equal((await fetch(`${proxy.url}/notes/a`)).status, 200, 'report mode relays the answer as it came');
  await fetch(`${proxy.url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"y"}' });
  await fetch(`${proxy.url}/notes/a`, { method: 'DELETE' });
  const stopped = await proxy.stop('SIGINT');
  assert.equal(stopped.code, 1, stopped.stderr);
  assert.match(stopped.stdout, /✖ #1 GET \/notes\/a -> 200: note\.read: \/colour is not declared \[resources\/record-undeclared-member\]\n {4}rule: note: no member 'colour' \(.*notes\.yaml:\d+:\d+\)/);
  assert.match(stopped.stdout, /✖ #2 POST \/notes -> 200: note\.create answered 200; the spec declares 201 \[endpoints\/status-undeclared\]/);
  assert.match(stopped.stdout, /✖ #3 DELETE \/notes\/a -> 404: .*not the declared 'application\/problem\+json' \[errors\/error-media-type\]/);
  assert.match(stopped.stdout, /3 exchanges judged, 3 findings/);

  const strict = await startProxy([NOTES, '--upstream', base, '--mode', 'strict', '--lines', 'ndjson']);
  children.push(strict.child);
  const refused = await fetch(`${strict.url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":-1}' });
  assert.equal(refused.status, 422, 'a request the spec refuses is answered by the proxy with the declared error');
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  const problem = (await refused.json()) as { code: string; status: number; errors: { pointer: string }[] };
  assert.equal(problem.code, 'validation-failed');
  assert.deepEqual(problem.errors.map((e) => e.pointer).sort(), ['/n', '/text']);
  const marked = await fetch(`${strict.url}/notes/a`);
  assert.equal(marked.status, 200);
  assert.equal(marked.headers.get('svcspec-findings'), 'record-undeclared-member', 'a violating answer is marked');
  assert.equal(((await marked.json()) as { colour: string }).colour, 'red', 'and relayed whole');
  const done = await strict.stop('SIGTERM');
  assert.equal(done.code, 1);
  const summary = JSON.parse(done.stdout.trim().split('\n').at(-1) as string) as { summary: { refused: number; findings: number } };
  assert.deepEqual(summary.summary, { upstream: base, exchanges: 1, findings: 1, outside: 0, refused: 1 });
});
