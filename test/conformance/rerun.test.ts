/**
 * A run again with the same seed against a service that kept the first run's records (those
 * the spec gives no delete for): the same values are drawn, and a declared uniqueness refuses
 * the ones a leftover holds. A body the tester drew itself is then drawn again, so the second
 * run is not failed for records the first one left.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';

test('the same seed twice against one service: values a leftover holds under a uniqueness are drawn again, nothing fails', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const options = { spec, baseUrl, principals, seed: 4242, sleep, now, only: ['resources' as const] };
  const first = await runConformance(options);
  assert.equal(first.counts.fail, 0, formatHuman(first));
  assert.ok((first.left?.member ?? 0) > 0, 'members have no delete in library.yaml: the first run leaves some, with their emails');
  let taken = 0;
  const second = await runConformance({ ...options, onExchange: (e) => void (e.response.status === 422 && e.response.text.includes('"email-taken"') && new URL(e.request.url).pathname === '/members' && taken++) });
  assert.equal(second.counts.fail, 0, formatHuman(second));
  assert.ok(taken > 0, 'a leftover held an email the second run drew (else this test shows nothing)');
});
