/**
 * Domain rules in the reference service (issue #14), over real HTTP on examples/library.yaml
 * and a real SQLite file: uniqueness, managed fields, guards with counts and related
 * records, effects on related records, ref deletion behaviours, record rules. Every domain
 * error the library declares happens for real, with its declared status and code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders } from './support/credentials.ts';

const LIBRARY = fileURLToPath(new URL('../../examples/library.yaml', import.meta.url));

async function serve(t: TestContext, file = LIBRARY) {
  const loaded = await loadSpec(file);
  assert.ok(loaded.value, loaded.diagnostics.map((d) => d.message).join('; '));
  const spec = loaded.value;
  const store = await openSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'svcspec-domain-')), 'db.sqlite') });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const staff = await credentialHeaders(spec, store, { principal: 'desk' });
  const call = async (method: string, path: string, body?: unknown, as: Record<string, string> = staff) => {
    const r = await fetch(base + path, { method, headers: { ...as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  const member = async (email: string, extra: Record<string, unknown> = {}) => {
    const r = await call('POST', '/members', { name: 'M', email, pin: '1234', ...extra });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const book = async (copies = 1) => {
    const r = await call('POST', '/books', { title: 'T', authors: ['A'], copies });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const loan = (bookId: string, memberId: number) => call('POST', '/loans', { book: bookId, member: memberId, dueDate: '2027-01-01' });
  return { call, member, book, loan, base, staff };
}

test('uniqueness: a second member with the same email, in any case, is email-taken (422) pointing at the field', async (t) => {
  const { call, member } = await serve(t);
  await member('ann@example.org');
  const again = await call('POST', '/members', { name: 'Other', email: 'ANN@example.org', pin: '9999' });
  assert.equal(again.status, 422);
  assert.equal(again.body.code, 'email-taken');
  assert.deepEqual(again.body.errors, [{ pointer: '/email', message: 'is taken' }]);
  const bob = await member('bob@example.org');
  const onto = await call('PATCH', `/members/${bob.id}`, { email: 'ann@example.org' });
  assert.equal(onto.status, 422, 'an update onto a taken value too');
  assert.equal(onto.body.code, 'email-taken');
});

test('uniqueness under 16 concurrent creates of one email: exactly one succeeds', async (t) => {
  const { call } = await serve(t);
  const results = await Promise.all(Array.from({ length: 16 }, (_, i) => call('POST', '/members', { name: `N${i}`, email: 'race@example.org', pin: '1234' })));
  assert.equal(results.filter((r) => r.status === 201).length, 1);
  for (const r of results) if (r.status !== 201) assert.equal(r.body.code, 'email-taken');
});

test('managed fields: time stamps within the request, a formatted sequence, a computed value, a counter', async (t) => {
  const { call, member, book, loan } = await serve(t);
  const before = Date.now();
  const m1 = await member('a@example.org');
  const m2 = await member('b@example.org');
  const after = Date.now();
  assert.equal(m1.cardNumber, 'LIB-00000001');
  assert.equal(m2.cardNumber, 'LIB-00000002');
  const at = Date.parse(m1.createdAt);
  assert.ok(at >= before - 1 && at <= after + 1, `${m1.createdAt} within the request`);
  const b = await book(3);
  assert.equal(b.available, 3, 'available starts as the copies');
  assert.ok(b.createdAt && b.updatedAt);
  const l = await loan(b.id, m1.id);
  assert.equal(l.status, 201, JSON.stringify(l.body));
  assert.equal(l.body.renewals, 0);
  assert.ok(l.body.requestedAt);
  assert.equal('returnedAt' in l.body, false, 'no source, nothing invented');
  // A client cannot set them.
  assert.equal((await call('POST', '/members', { name: 'X', email: 'x@example.org', pin: '1234', cardNumber: 'LIB-99999999' })).status, 422);
  await new Promise((r) => setTimeout(r, 5));
  const changed = await call('PATCH', `/books/${b.id}`, { title: 'New' });
  assert.ok(Date.parse(changed.body.updatedAt) > Date.parse(b.updatedAt), 'updated-at moves on every write');
  assert.equal(changed.body.createdAt, b.createdAt, 'created-at does not');
});

test('guards with related records and effects on them: approve takes a copy, return gives it back; the last copy goes once', async (t) => {
  const { call, member, book, loan } = await serve(t);
  const b = await book(1);
  const m1 = await member('a@example.org');
  const m2 = await member('b@example.org');
  const l1 = (await loan(b.id, m1.id)).body;
  const l2 = (await loan(b.id, m2.id)).body;
  await new Promise((r) => setTimeout(r, 5));
  const ok = await call('POST', `/loans/${l1.id}/approve`, { dueDate: '2027-02-01' });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const taken = (await call('GET', `/books/${b.id}`)).body;
  assert.equal(taken.available, 0);
  // The book the effect changed is written like any change: its updated-at moves, its created-at stays;
  // the loan's own managed fields are set on create only, so the transition keeps them.
  assert.ok(Date.parse(taken.updatedAt) > Date.parse(b.updatedAt), 'updated-at of the record an effect changes moves');
  assert.equal(taken.createdAt, b.createdAt);
  assert.deepEqual([ok.body.requestedAt, ok.body.renewals], [l1.requestedAt, l1.renewals]);
  const none = await call('POST', `/loans/${l2.id}/approve`, { dueDate: '2027-02-01' });
  assert.equal(none.status, 409);
  assert.equal(none.body.code, 'book-unavailable');
  assert.equal((await call('GET', `/loans/${l2.id}`)).body.status, 'requested', 'nothing of a refused write is kept');
  const m3 = await member('c@example.org');
  const create = await loan(b.id, m3.id);
  assert.equal(create.status, 409, 'a create is guarded too');
  assert.equal(create.body.code, 'book-unavailable');
  const back = await call('POST', `/loans/${l1.id}/return`, { returnCondition: 'good' });
  assert.equal(back.status, 200);
  assert.ok(back.body.returnedAt, 'set: now');
  assert.equal((await call('GET', `/books/${b.id}`)).body.available, 1);
});

test('16 concurrent approvals of the last copy: exactly one wins, and the book never goes below 0', async (t) => {
  const { call, member, book, loan } = await serve(t);
  const b = await book(1);
  const loans = [];
  for (let i = 0; i < 16; i++) loans.push((await loan(b.id, (await member(`m${i}@example.org`)).id)).body);
  const results = await Promise.all(loans.map((l) => call('POST', `/loans/${l.id}/approve`, { dueDate: '2027-02-01' })));
  assert.equal(results.filter((r) => r.status === 200).length, 1);
  for (const r of results) if (r.status !== 200) assert.equal(r.body.code, 'book-unavailable');
  assert.equal((await call('GET', `/books/${b.id}`)).body.available, 0);
});

test('guards with counts: loan-limit-reached at maxLoans open loans; member-suspended; renewal-limit-reached', async (t) => {
  const { call, member, book, loan } = await serve(t);
  const m = await member('a@example.org', { maxLoans: 2 });
  const b = await book(10);
  assert.equal((await loan(b.id, m.id)).status, 201);
  assert.equal((await loan(b.id, m.id)).status, 201);
  const third = await loan(b.id, m.id);
  assert.equal(third.status, 422);
  assert.equal(third.body.code, 'loan-limit-reached');
  const s = await member('s@example.org');
  await call('POST', `/members/${s.id}/verify`);
  assert.equal((await call('POST', `/members/${s.id}/suspend`, { suspensionReason: 'fees' })).status, 200);
  const refused = await loan(b.id, s.id);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'member-suspended');
  const r = await member('r@example.org');
  const l = (await loan(b.id, r.id)).body;
  await call('POST', `/loans/${l.id}/approve`, { dueDate: '2027-01-01' });
  for (let i = 0; i < 3; i++) {
    const renewed = await call('POST', `/loans/${l.id}/renew`, { dueDate: `2027-0${i + 2}-01` });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.body.renewals, i + 1, 'the effect increments');
  }
  const fourth = await call('POST', `/loans/${l.id}/renew`, { dueDate: '2027-06-01' });
  assert.equal(fourth.status, 422);
  assert.equal(fourth.body.code, 'renewal-limit-reached');
});

test('a guard on a transition with a count: closing a member with loans out is member-has-open-loans', async (t) => {
  const { call, member, book, loan } = await serve(t);
  const m = await member('a@example.org');
  const b = await book(2);
  const l = (await loan(b.id, m.id)).body;
  await call('POST', `/loans/${l.id}/approve`, { dueDate: '2027-01-01' });
  const close = await call('POST', `/members/${m.id}/close`);
  assert.equal(close.status, 409);
  assert.equal(close.body.code, 'member-has-open-loans');
  await call('POST', `/loans/${l.id}/return`, { returnCondition: 'good' });
  assert.equal((await call('POST', `/members/${m.id}/close`)).status, 200);
});

test('a ref whose onDelete refuses: a book with loans cannot be withdrawn (book-has-loans); without loans it can', async (t) => {
  const { call, member, book, loan } = await serve(t);
  const b = await book(1);
  const m = await member('a@example.org');
  await loan(b.id, m.id);
  const refused = await call('DELETE', `/books/${b.id}`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'book-has-loans');
  assert.equal((await call('GET', `/books/${b.id}`)).status, 200);
  const free = await book(1);
  assert.equal((await call('DELETE', `/books/${free.id}`)).status, 204);
  const bulk = await call('POST', '/books/bulk-delete', { items: [free.id, b.id] });
  assert.notEqual(bulk.status, 200, 'a bulk delete is held to it too');
});

test('an effect on a related record keeps its rules: copies below what is on the shelf is refused', async (t) => {
  const { call, book } = await serve(t);
  const b = await book(2);
  const fewer = await call('PATCH', `/books/${b.id}`, { copies: 1 });
  assert.equal(fewer.status, 422, 'a record rule: available <= copies');
  assert.equal(fewer.body.code, 'validation-failed');
  assert.deepEqual(fewer.body.errors.map((e: { pointer: string }) => e.pointer), ['/copies']);
});

test("a ref to another principal's owned record is answered exactly as a ref to none (OWASP API1): existence never leaks", async (t) => {
  const ORDERS = fileURLToPath(new URL('../../examples/orders.yaml', import.meta.url));
  const loaded = await loadSpec(ORDERS);
  assert.ok(loaded.value);
  const spec = loaded.value;
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const ann = await credentialHeaders(spec, store, { principal: 'ann' });
  const bob = await credentialHeaders(spec, store, { principal: 'bob' });
  const call = async (method: string, path: string, body: unknown, as: Record<string, string>) => {
    const r = await fetch(`${base}/v2${path}`, { method, headers: { ...as, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as { id: string; violations?: { pointer: string; message: string }[] } };
  };
  const address = await call('POST', '/addresses', { recipient: 'Ann', line1: '1 Main St', city: 'Utrecht', postalCode: '3511 AB', country: 'NL' }, ann);
  assert.equal(address.status, 201, JSON.stringify(address.body));
  const order = (savedAddress: string) => ({ customerEmail: 'b@example.org', lines: [{ product: 1, quantity: 1 }], shippingAddress: { recipient: 'B', line1: 'x', city: 'y', postalCode: '1234', country: 'NL' }, savedAddress });
  const annsAddress = await call('POST', '/orders', order(address.body.id), bob);
  const noAddress = await call('POST', '/orders', order('00000000-0000-4000-8000-000000000000'), bob);
  assert.equal(annsAddress.status, 422, JSON.stringify(annsAddress.body));
  assert.equal(annsAddress.status, noAddress.status);
  // orders.yaml's custom error shape lists violations under `violations`.
  const at = (r: { body: { violations?: { pointer: string; message: string }[] } }) => r.body.violations?.find((e) => e.pointer === '/savedAddress')?.message.replace(/'[^']*'/, "'…'");
  assert.ok(at(annsAddress), JSON.stringify(annsAddress.body));
  assert.equal(at(annsAddress), at(noAddress), 'the same words for a hidden record and a missing one');
  const mine = await call('POST', '/orders', order(address.body.id), ann);
  assert.equal(mine.body.violations?.some((e) => e.pointer === '/savedAddress') ?? false, false, "the owner's own ref is fine");
});
