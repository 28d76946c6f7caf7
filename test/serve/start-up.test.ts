/**
 * What serve loads before it answers (issue #20, start-up): the parts of svcspec and the
 * packages only some requests or some specs need are loaded when first needed, not at
 * start-up — the document renderer and the exporters (the /docs routes), jose (a JWT
 * scheme's first token), `yaml` (a finding's place), the Markdown parser (a Markdown spec),
 * Ajv (the first request validator: a read compiles none).
 * A load hook in the child appends every module it loads to a file, synchronously, so the
 * file holds every module loaded before an answer was sent. No timing: which modules, not how fast.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN, killAll, ROOT, servingUrl } from '../support/child-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-start-up-'));
const children: ChildProcess[] = [];
after(async () => {
  await killAll(children);
  rmSync(dir, { recursive: true, force: true });
});

const HOOK = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs'; registerHooks({ load(url, context, next) { appendFileSync(process.env.SVCSPEC_TEST_MODULES, url + '\\n'); return next(url, context); } });",
)}`;

/** Loaded only where first needed: each a pattern of the module URLs it stands for. */
const LAZY: readonly [string, RegExp][] = [
  ['the document renderer (src/doc)', /\/src\/doc\//],
  ['the exporters (src/export)', /\/src\/export\//],
  ['jose', /\/node_modules\/jose\//],
  ['yaml', /\/node_modules\/yaml\//],
  ['the Markdown parser', /\/node_modules\/(micromark|mdast-util-from-markdown)/],
  // The format's generated validator needs a few of Ajv's runtime helpers, not Ajv itself.
  ['Ajv (the first request validator compiled)', /\/node_modules\/(ajv\/dist\/(ajv|core)\.js|ajv-formats\/dist\/index\.js)/],
];

test('serve answers its first request without loading what only some requests or specs need; /docs/spec loads the renderer then', async () => {
  const modules = join(dir, 'modules.txt');
  const child = spawn(process.execPath, ['--import', HOOK, BIN, 'serve', join(ROOT, 'examples/library.yaml'), '--port', '0', '--db', join(dir, 'library.db'), '--quiet'], {
    env: { ...process.env, SVCSPEC_TEST_MODULES: modules },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const { url } = await servingUrl(child);
  const res = await fetch(`${url}/books`);
  assert.equal(res.status, 200, await res.clone().text());
  const loaded = readFileSync(modules, 'utf8').split('\n');
  assert.ok(loaded.some((m) => m.includes('/src/serve/app.ts')), 'the hook saw the service load');
  for (const [what, pattern] of LAZY) assert.equal(loaded.find((m) => pattern.test(m)), undefined, `${what} is not loaded before the first answer`);
  // The spec's document is rendered on its first request: the renderer is loaded then.
  const doc = await fetch(`${url}/docs/spec`);
  assert.equal(doc.status, 200);
  assert.match(await doc.text(), /City Library/);
  assert.ok(readFileSync(modules, 'utf8').split('\n').some((m) => /\/src\/doc\//.test(m)), 'the renderer is loaded with /docs/spec');
});

/** Also writes, at exit, the internal modules Node loaded (process.moduleLoadList), which no load hook sees. */
const HOOK_AND_INTERNALS = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; import { appendFileSync, writeFileSync } from 'node:fs'; registerHooks({ load(url, context, next) { appendFileSync(process.env.SVCSPEC_TEST_MODULES, url + '\\n'); return next(url, context); } }); process.on('exit', () => writeFileSync(process.env.SVCSPEC_TEST_MODULES + '.internal', process.moduleLoadList.join('\\n')));",
)}`;

test('serve of a spec without rules, guards, effects or computed fields answers without loading the CEL evaluator, nor undici (an ES import of node:http would)', async () => {
  const modules = join(dir, 'rule-less-modules.txt');
  const child = spawn(process.execPath, ['--import', HOOK_AND_INTERNALS, BIN, 'serve', join(ROOT, 'examples/json-server.yaml'), '--port', '0', '--db', join(dir, 'posts.db'), '--quiet'], {
    env: { ...process.env, SVCSPEC_TEST_MODULES: modules },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const { url } = await servingUrl(child);
  const res = await fetch(`${url}/posts`);
  assert.equal(res.status, 200, await res.clone().text());
  const loaded = readFileSync(modules, 'utf8').split('\n');
  assert.ok(loaded.some((m) => m.includes('/src/serve/domain/compile.ts')), 'the hook saw the domain runtime load');
  assert.equal(loaded.find((m) => /\/node_modules\/@marcbachmann\/cel-js\//.test(m)), undefined, 'the CEL evaluator is not loaded');
  // Stopped gracefully, it writes Node's own list at exit.
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const internals = readFileSync(`${modules}.internal`, 'utf8').split('\n');
  assert.ok(internals.some((m) => /\binternal\/modules\/esm\//.test(m)), `the list is Node's module list: ${internals.slice(0, 5).join(', ')}`);
  assert.equal(internals.find((m) => m.includes('internal/deps/undici/undici')), undefined, 'undici is not loaded (node:http taken with process.getBuiltinModule, not an ES import)');
});
