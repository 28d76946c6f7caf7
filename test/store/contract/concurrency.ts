/** Store contract cases: concurrent writes, of which compare-and-set lets exactly one through. */
import assert from 'node:assert/strict';
import { DuplicateIdError } from '../../../src/store/store.ts';
import { define, ids, R, response, seqs, type Case } from './case.ts';

export const concurrencyCases: Case[] = [];
const it = define(concurrencyCases);

const N = 12;

it('concurrent transitions from one state: exactly one succeeds', async (store) => {
  const r = await store.insert(R, { data: { status: 'open' } });
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => store.update(R, r.id, { status: 'closed', by: i }, { state: { field: 'status', from: ['open'] } })),
  );
  const winners = results.filter((x) => x.ok);
  assert.equal(winners.length, 1, `winners: ${winners.length}`);
  const won = winners[0].ok ? winners[0].record : undefined;
  for (const x of results) if (!x.ok) assert.deepEqual(x, { ok: false, reason: 'state', current: won });
  const now = await store.get(R, r.id);
  assert.deepEqual(now, won);
  assert.equal(now?.version, 2);
});

it('concurrent updates expecting one version: exactly one succeeds', async (store) => {
  const r = await store.insert(R, { data: { n: 0 } });
  const results = await Promise.all(Array.from({ length: N }, (_, i) => store.update(R, r.id, { n: i + 1 }, { version: 1 })));
  assert.equal(results.filter((x) => x.ok).length, 1);
  for (const x of results) if (!x.ok) assert.equal(x.reason, 'version');
  assert.equal((await store.get(R, r.id))?.version, 2);
});

it('concurrent inserts without ids get distinct ids and seqs', async (store) => {
  const rs = await Promise.all(Array.from({ length: N }, (_, i) => store.insert(R, { data: { i } })));
  assert.equal(new Set(ids(rs)).size, N);
  assert.equal(new Set(seqs(rs)).size, N);
  assert.equal((await store.list(R, { limit: 100 })).records.length, N);
});

it('concurrent inserts of one id: exactly one succeeds, the rest are DuplicateIdError', async (store) => {
  const results = await Promise.allSettled(Array.from({ length: N }, (_, i) => store.insert(R, { id: 'same', data: { i } })));
  assert.equal(results.filter((x) => x.status === 'fulfilled').length, 1);
  for (const x of results) if (x.status === 'rejected') assert.ok(x.reason instanceof DuplicateIdError, String(x.reason));
});

it('concurrent puts of one idempotency key: exactly one is stored', async (store) => {
  const results = await Promise.all(Array.from({ length: N }, (_, i) => store.putIdempotent('s', 'k', response(i))));
  assert.equal(results.filter(Boolean).length, 1);
  const winner = results.indexOf(true);
  assert.equal((await store.getIdempotent('s', 'k'))?.fingerprint, `fp${winner}`);
});

it('concurrent removes expecting one version: exactly one succeeds', async (store) => {
  const r = await store.insert(R, { data: {} });
  const results = await Promise.all(Array.from({ length: N }, () => store.remove(R, r.id, { version: 1 })));
  assert.equal(results.filter((x) => x.ok).length, 1);
  for (const x of results) if (!x.ok) assert.equal(x.reason, 'missing');
});
