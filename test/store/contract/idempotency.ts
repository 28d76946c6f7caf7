/** Store contract cases: Idempotency-Key records. */
import assert from 'node:assert/strict';
import { define, response, type Case } from './case.ts';

export const idempotencyCases: Case[] = [];
const it = define(idempotencyCases);

it('idempotency: an unknown key is undefined; put then get returns the response', async (store) => {
  assert.equal(await store.getIdempotent('ann POST /things', 'k1'), undefined);
  assert.equal(await store.putIdempotent('ann POST /things', 'k1', response(1)), true);
  assert.deepEqual(await store.getIdempotent('ann POST /things', 'k1'), response(1));
});

it('idempotency: a second put of a key returns false and keeps the first response', async (store) => {
  assert.equal(await store.putIdempotent('s', 'k', response(1)), true);
  assert.equal(await store.putIdempotent('s', 'k', response(2, 2_000)), false);
  assert.deepEqual(await store.getIdempotent('s', 'k'), response(1));
});

it('idempotency: keys are per scope', async (store) => {
  assert.equal(await store.putIdempotent('ann', 'k', response(1)), true);
  assert.equal(await store.putIdempotent('bob', 'k', response(2)), true);
  assert.equal(await store.getIdempotent('carl', 'k'), undefined);
  assert.equal((await store.getIdempotent('ann', 'k'))?.fingerprint, 'fp1');
  assert.equal((await store.getIdempotent('bob', 'k'))?.fingerprint, 'fp2');
});

it('idempotency: expire forgets keys created before the time, counts them, keeps the rest', async (store) => {
  await store.putIdempotent('s', 'old1', response(1, 1_000));
  await store.putIdempotent('s', 'old2', response(2, 1_999));
  await store.putIdempotent('s', 'edge', response(3, 2_000));
  await store.putIdempotent('s', 'new', response(4, Date.now()));
  assert.equal(await store.expireIdempotent(2_000), 2);
  assert.equal(await store.getIdempotent('s', 'old1'), undefined);
  assert.equal(await store.getIdempotent('s', 'old2'), undefined);
  assert.equal((await store.getIdempotent('s', 'edge'))?.fingerprint, 'fp3');
  assert.equal((await store.getIdempotent('s', 'new'))?.fingerprint, 'fp4');
  assert.equal(await store.expireIdempotent(2_000), 0);
  assert.equal(await store.putIdempotent('s', 'old1', response(5, 3_000)), true, 'an expired key can be used again');
});
