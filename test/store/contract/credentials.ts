/** Store contract cases: issued credentials (part 5). */
import assert from 'node:assert/strict';
import type { CredentialRecord } from '../../../src/store/credentials.ts';
import { define, type Case } from './case.ts';

export const credentialCases: Case[] = [];
const it = define(credentialCases);

function credential(id: string, over: Partial<CredentialRecord> = {}): CredentialRecord {
  return { id, scheme: 'key', kind: 'apiKey', secretHash: `hash-${id}`, scopes: ['a:read', 'a:write'], principal: `p-${id}`, createdAt: 1_000, ...over };
}

it('credentials: put then get returns every member as given; an unknown id is undefined', async (store) => {
  assert.equal(await store.credentials.get('k1'), undefined);
  const c = credential('k1', { label: 'CI', expiresAt: 9_000 });
  await store.credentials.put(c);
  assert.deepEqual(await store.credentials.get('k1'), c);
  await store.credentials.put(credential('k2', { scopes: [] }));
  assert.deepEqual((await store.credentials.get('k2'))?.scopes, []);
  assert.equal((await store.credentials.get('k2'))?.label, undefined);
});

it('credentials: a taken id is refused and the first kept', async (store) => {
  await store.credentials.put(credential('k1'));
  await assert.rejects(store.credentials.put(credential('k1', { principal: 'someone else' })));
  assert.equal((await store.credentials.get('k1'))?.principal, 'p-k1');
});

it('credentials: list leaves issued tokens out, oldest first', async (store) => {
  await store.credentials.put(credential('b', { createdAt: 2_000 }));
  await store.credentials.put(credential('a', { createdAt: 3_000 }));
  await store.credentials.put(credential('t', { kind: 'token', createdAt: 1_000, expiresAt: 5_000 }));
  assert.deepEqual((await store.credentials.list()).map((c) => c.id), ['b', 'a']);
});

it('credentials: revoke marks once, keeps the record, and reports unknown ids', async (store) => {
  await store.credentials.put(credential('k1'));
  assert.equal(await store.credentials.revoke('k1', 5_000), true);
  assert.equal(await store.credentials.revoke('k1', 6_000), false, 'already revoked');
  assert.equal(await store.credentials.revoke('nope', 6_000), false);
  assert.equal((await store.credentials.get('k1'))?.revokedAt, 5_000);
});

it('credentials: revoking a client revokes the tokens issued to it, and nothing else', async (store) => {
  await store.credentials.put(credential('c1', { kind: 'client' }));
  await store.credentials.put(credential('t1', { kind: 'token', expiresAt: 9_000, issuedTo: 'c1' }));
  await store.credentials.put(credential('t2', { kind: 'token', expiresAt: 9_000, issuedTo: 'c2' }));
  assert.equal((await store.credentials.get('t1'))?.issuedTo, 'c1');
  assert.equal(await store.credentials.revoke('c1', 4_000), true);
  assert.equal((await store.credentials.get('t1'))?.revokedAt, 4_000);
  assert.equal((await store.credentials.get('t2'))?.revokedAt, undefined);
});

it('credentials: expire forgets issued tokens that expired before the time, nothing else', async (store) => {
  await store.credentials.put(credential('old', { kind: 'token', expiresAt: 1_999 }));
  await store.credentials.put(credential('edge', { kind: 'token', expiresAt: 2_000 }));
  await store.credentials.put(credential('key', { createdAt: 1 }));
  assert.equal(await store.credentials.expire(2_000), 1);
  assert.equal(await store.credentials.get('old'), undefined);
  assert.ok(await store.credentials.get('edge'));
  assert.ok(await store.credentials.get('key'));
});
