/**
 * The public API as README's "As a library" uses it: load and check a spec (svcspec), serve it
 * with the app factory on a store (svcspec/serve), and test it over a real socket
 * (svcspec/test); and the main entry loads neither Fastify nor node:sqlite.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatHuman as formatTestReport, runConformance } from '../src/conformance/index.ts';
import { checkSpec, loadSpec } from '../src/index.ts';
import { createApp, openSqliteStore } from '../src/serve/index.ts';

test('the public API loads, checks, serves and tests a spec end to end', async (t) => {
  const { value: spec, diagnostics } = await loadSpec(fileURLToPath(new URL('../bench/fixtures/items.yaml', import.meta.url)));
  assert.ok(spec, 'the spec loads');
  assert.equal(checkSpec(spec, diagnostics).diagnostics.filter((d) => d.severity === 'error').length, 0);
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const report = await runConformance({ spec, baseUrl, principals: [], seed: 7 });
  assert.equal(report.counts.fail, 0, formatTestReport(report));
  assert.ok(report.counts.pass > 20, `${report.counts.pass} checks passed`);
  assert.match(formatTestReport(report), /^PASS: \d+ passed, 0 failed/m);
});

test('the main entry loads neither Fastify nor node:sqlite', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = "import('./src/index.ts').then(() => { const m = process.moduleLoadList ?? []; console.log(JSON.stringify({ sqlite: m.some((x) => x.includes('sqlite')), fastify: Object.keys(require.cache ?? {}).some((k) => k.includes('fastify')) })); })";
  const root = fileURLToPath(new URL('..', import.meta.url));
  const r = spawnSync(process.execPath, ['--input-type=commonjs', '-e', script], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), { sqlite: false, fastify: false });
});
