/**
 * A route's handler is made on its first request (src/serve/routes.ts onFirstRequest): made
 * once, and a maker that throws (a bug) is run once, its error answered on every request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { onFirstRequest } from '../../src/serve/routes.ts';

test('a handler is made on the first request, once; a maker that throws runs once and every request answers 500', async () => {
  const app = Fastify();
  let made = 0;
  let failures = 0;
  app.get('/ok', onFirstRequest(() => {
    made++;
    return async () => ({ made });
  }));
  app.get('/bug', onFirstRequest(() => {
    failures++;
    throw new Error('bug: a maker that throws');
  }));
  assert.equal(made, 0, 'nothing is made before a request');
  for (let i = 0; i < 3; i++) assert.deepEqual((await app.inject('/ok')).json(), { made: 1 });
  for (let i = 0; i < 3; i++) assert.equal((await app.inject('/bug')).statusCode, 500);
  assert.equal(made, 1);
  assert.equal(failures, 1, 'the failing maker ran once, not once per request');
  await app.close();
});
