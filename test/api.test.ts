/**
 * The public API (src/index.ts) as README's "As a library" uses it: load a spec, serve it
 * with the app factory on a store, and test it with the tester over a real socket.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSpec, createApp, formatTestReport, loadSpec, openSqliteStore, runConformance } from '../src/index.ts';

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
