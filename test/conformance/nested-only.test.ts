/**
 * A resource whose every item endpoint is reached through its parent
 * (`/projects/{projectId}/tasks/{id}/start`), from fixtures/rails-nested.yaml (a helper's walk
 * found the tester sending the template `{projectId}` itself, 12 false failures): the tester
 * fills the parent of the record it made on every such path, leaves the ref out of a create
 * that lists its fields without it (the path gives it), and the proxy, in front of the
 * reference while the tester runs, finds nothing (a nested create's ref comes from its path).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { loadSpec } from '../../src/load/index.ts';
import { startProxy } from '../../src/proxy/index.ts';
import { serveForTester } from './support.ts';

// The fixture, and the example made of it (examples/tracker.yaml: tokens sent as `Authorization: Token <token>`).
for (const file of ['./fixtures/rails-nested.yaml', '../../examples/tracker.yaml']) test(`conformance: tasks reached only through their project pass against the reference, through the proxy, which finds nothing (${file.split('/').at(-1)})`, async (t) => {
  const loaded = await loadSpec(fileURLToPath(new URL(file, import.meta.url)));
  assert.ok(loaded.value, loaded.diagnostics.map((d) => d.message).join('\n'));
  const spec = loaded.value;
  const templated: string[] = [];
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => {
    app.addHook('onRequest', async (request) => void (/%7B|\{/i.test(request.url) && templated.push(`${request.method} ${request.url}`)));
  });
  const proxy = await startProxy({ spec, upstream: baseUrl });
  t.after(() => proxy.close());
  const report = await runConformance({ spec, baseUrl: proxy.url, principals, seed: 3, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.deepEqual(templated, [], 'no request was sent to a path template');
  for (const id of ['task.open.start', 'task.in_progress.complete']) assert.equal(report.results.find((r) => r.id === id)?.outcome, 'pass', `${id}:\n${formatHuman(report)}`);
  assert.deepEqual(proxy.findings.map((f) => `${f.part}/${f.id}: ${f.message}`), []);
});
