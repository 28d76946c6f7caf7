/**
 * A create the tester gave up on (its time-out) but the service made all the same: the run
 * ends (the implementation did not answer in time), and its clean-up waits for the late
 * answer and deletes the record it names, as it deletes every record the run made.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, TransportError } from '../../src/conformance/index.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { answerOneCreateLate } from './fakes/late-create.ts';
import { serveForTester } from './support.ts';

test('a create answered after the time-out: the run stops, and the record the late answer names is deleted', async (t) => {
  const spec = await exampleSpec('library.yaml');
  let late: ReturnType<typeof answerOneCreateLate> | undefined;
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => (late = answerOneCreateLate(app, 1500)));
  await assert.rejects(runConformance({ spec, baseUrl, principals, seed: 1, sleep, now, timeoutMs: 400 }), (error: unknown) => error instanceof TransportError && /no answer within 400 ms/.test(error.message));
  const id = late?.id;
  assert.ok(id, 'the service made a record and answered late');
  const create = late!.answered.find((line) => line.startsWith('POST ') && line.endsWith(' 201'));
  assert.ok(create, 'the late create was answered');
  const collection = create.split(' ')[1].split('?')[0];
  const deleted = late!.answered.find((line) => line.startsWith(`DELETE ${collection}/${encodeURIComponent(id)}`));
  assert.ok(deleted, `no DELETE of ${collection}/${id} was sent; answered: ${late!.answered.slice(-5).join('; ')}`);
  assert.match(deleted, / 204$/);
});
