/**
 * Guards of updates (`onUpdate`) and guards on each item of an array (`each`, with `item`
 * and `itemRefs`), issue #14, over real HTTP on the orders and helpdesk examples and a real
 * SQLite file: order-not-editable, product-off-sale, out-of-stock, payment-mismatch,
 * ticket-closed and agent-inactive happen for real, point at what broke them, and leave
 * nothing changed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { domainRuntime } from '../../src/serve/domain/index.ts';
import { emptyRead } from '../../src/store/domain.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders } from './support/credentials.ts';
import { mustLoad } from '../support/spec.ts';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}.yaml`, import.meta.url));

async function serve(t: TestContext, file: string, prefix = '') {
  const loaded = await loadSpec(file);
  assert.ok(loaded.value, loaded.diagnostics.map((d) => d.message).join('; '));
  const spec = loaded.value;
  const store = await openSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'svcspec-domain-update-')), 'db.sqlite') });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const as = await credentialHeaders(spec, store, { principal: 'ann' });
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(base + prefix + path, { method, headers: { ...as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** The error code member: `error` in orders' own shape, `code` in helpdesk's problem details. */
const codeOf = (body: { code?: string; error?: string }) => body.code ?? body.error;

const ADDRESS = { recipient: 'Ann', line1: 'Main 1', city: 'Utrecht', postalCode: '3511 AA', country: 'NL' };

async function orders(t: TestContext) {
  const call = await serve(t, example('orders'), '/v2');
  const product = async (sku: string, extra: Record<string, unknown> = {}) => {
    const r = await call('POST', '/products', { sku, name: 'Mug', unitPrice: { amount: 1200 }, stock: 5, ...extra });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const order = async (lines: unknown[]) => call('POST', '/orders', { customerEmail: 'ann@example.org', lines, shippingAddress: ADDRESS });
  return { call, product, order };
}

test('each: an order line naming a product off sale is product-off-sale (422) at that line, on create and on update; nothing is kept', async (t) => {
  const { call, product, order } = await orders(t);
  const on = await product('MUG-BLUE');
  const off = await product('MUG-RED', { onSale: false });
  const refused = await order([{ product: on.id, quantity: 1 }, { product: off.id, quantity: 2 }]);
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(codeOf(refused.body), 'product-off-sale');
  assert.deepEqual(refused.body.violations, [{ pointer: '/lines/1', message: refused.body.detail }]);
  assert.match(refused.body.detail, /^Item 1 of lines: /);
  assert.equal((await call('GET', '/orders')).body.items.length, 0, 'the refused create kept nothing');
  const ok = await order([{ product: on.id, quantity: 1 }]);
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const patched = await call('PATCH', `/orders/${ok.body.id}`, { lines: [{ product: off.id, quantity: 1 }] });
  assert.equal(patched.status, 422);
  assert.equal(codeOf(patched.body), 'product-off-sale');
  assert.deepEqual((await call('GET', `/orders/${ok.body.id}`)).body.lines.map((l: { product: number }) => l.product), [on.id], 'the refused update changed nothing');
});

test('each on a transition: place checks every line against its product now (off sale, then stock); the update guard reads old', async (t) => {
  const { call, product, order } = await orders(t);
  const mug = await product('MUG-BLUE', { stock: 3 });
  const o = (await order([{ product: mug.id, quantity: 2 }])).body;
  assert.equal((await call('PATCH', `/products/${mug.id}`, { stock: 1 })).status, 200);
  const short = await call('POST', `/orders/${o.id}/place`, { shippingAddress: ADDRESS });
  assert.equal(short.status, 409, JSON.stringify(short.body));
  assert.equal(codeOf(short.body), 'out-of-stock');
  assert.equal((await call('GET', `/orders/${o.id}`)).body.status, 'draft', 'a refused transition leaves the state');
  assert.equal((await call('PATCH', `/products/${mug.id}`, { onSale: false })).status, 200);
  assert.equal(codeOf((await call('POST', `/orders/${o.id}/place`, { shippingAddress: ADDRESS })).body), 'product-off-sale', 'the earlier guard refuses first');
  assert.equal((await call('PATCH', `/products/${mug.id}`, { onSale: true, stock: 2 })).status, 200);
  const placed = await call('POST', `/orders/${o.id}/place`, { shippingAddress: ADDRESS });
  assert.equal(placed.status, 200, JSON.stringify(placed.body));
  assert.equal(placed.body.status, 'placed');
  const late = await call('PATCH', `/orders/${o.id}`, { giftMessage: 'Enjoy' });
  assert.equal(late.status, 409);
  assert.equal(codeOf(late.body), 'order-not-editable');
  assert.equal((await call('GET', `/orders/${o.id}`)).body.giftMessage, undefined, 'the refused update changed nothing');
});

test('a guard on the attached record: pay with a payment not captured is payment-mismatch; captured, it is paid', async (t) => {
  const { call, product, order } = await orders(t);
  const mug = await product('MUG-BLUE');
  const o = (await order([{ product: mug.id, quantity: 1 }])).body;
  assert.equal((await call('POST', `/orders/${o.id}/place`, { shippingAddress: ADDRESS })).status, 200);
  const payment = (await call('POST', '/payments', { order: o.id, amount: 1200, currency: 'EUR', method: 'ideal' })).body;
  const early = await call('POST', `/orders/${o.id}/pay`, { payment: payment.id });
  assert.equal(early.status, 422, JSON.stringify(early.body));
  assert.equal(codeOf(early.body), 'payment-mismatch');
  assert.equal((await call('POST', `/payments/${payment.id}/authorize`, {})).status, 200);
  assert.equal((await call('POST', `/payments/${payment.id}/capture`, {})).status, 200);
  const paid = await call('POST', `/orders/${o.id}/pay`, { payment: payment.id });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  assert.equal(paid.body.status, 'paid');
});

test('helpdesk: a closed ticket does not change (ticket-closed); an inactive assignee cannot start one (agent-inactive)', async (t) => {
  const call = await serve(t, example('helpdesk'));
  const ticket = async () => {
    const r = await call('POST', '/tickets', { subject: 'Printer on fire', description: 'Smoke.', requesterEmail: 'c@example.org', severity: 'low' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const a = await ticket();
  assert.equal((await call('PATCH', `/tickets/${a.id}`, { tags: ['hardware'] })).status, 200, 'an open ticket changes');
  assert.equal((await call('POST', `/tickets/${a.id}/close`)).status, 200);
  const closed = await call('PATCH', `/tickets/${a.id}`, { tags: ['again'] });
  assert.equal(closed.status, 409, JSON.stringify(closed.body));
  assert.equal(codeOf(closed.body), 'ticket-closed');
  assert.deepEqual((await call('GET', `/tickets/${a.id}`)).body.tags, ['hardware']);

  const agent = (await call('POST', '/agents', { email: 'x@example.org', name: 'X', password: 'correct horse battery', active: false })).body;
  const b = await ticket();
  const start = await call('POST', `/tickets/${b.id}/start`, { assignee: agent.id });
  assert.equal(start.status, 403, JSON.stringify(start.body));
  assert.equal(codeOf(start.body), 'agent-inactive');
  assert.equal((await call('PATCH', `/agents/${agent.id}`, { active: true })).status, 200);
  assert.equal((await call('POST', `/tickets/${b.id}/start`, { assignee: agent.id })).status, 200);

  // An effect of updates: editedAt is set when, and only when, an update changes the body.
  const comment = (await call('POST', '/comments', { ticket: b.id, body: 'First' })).body;
  assert.equal(comment.editedAt, undefined, 'not edited yet');
  assert.equal((await call('PATCH', `/comments/${comment.id}`, { internal: true })).body.editedAt, undefined, 'a change of another field is no edit');
  const before = Date.now();
  const edited = (await call('PATCH', `/comments/${comment.id}`, { body: 'Second' })).body;
  assert.ok(Date.parse(edited.editedAt) >= before - 1 && Date.parse(edited.editedAt) <= Date.now() + 1, `${edited.editedAt} within the request`);
  const again = (await call('PATCH', `/comments/${comment.id}`, { internal: false })).body;
  assert.equal(again.editedAt, edited.editedAt, 'kept by a later change that is no edit');
});

test('a count over the request: a coupon code is taken while a coupon with it is active; unknown or expired is coupon-invalid', async (t) => {
  const { call, product, order } = await orders(t);
  const mug = await product('MUG-BLUE');
  const coupon = await call('POST', '/coupons', { code: 'WINTER25', percentOff: 25 });
  assert.equal(coupon.status, 201, JSON.stringify(coupon.body));
  assert.equal(coupon.body.status, 'active');
  const withCode = (code: string) => call('POST', '/orders', { customerEmail: 'ann@example.org', lines: [{ product: mug.id, quantity: 1 }], shippingAddress: ADDRESS, couponCode: code });
  assert.equal((await withCode('WINTER25')).status, 201, 'an active coupon is taken');
  const unknown = await withCode('SUMMER10');
  assert.equal(unknown.status, 422);
  assert.equal(codeOf(unknown.body), 'coupon-invalid');
  assert.equal((await call('POST', `/coupons/${coupon.body.id}/expire`, {})).status, 200);
  const expired = await withCode('WINTER25');
  assert.equal(expired.status, 422);
  assert.equal(codeOf(expired.body), 'coupon-invalid');
  assert.equal((await call('GET', '/orders')).body.items.length, 1, 'only the accepted order exists');
  const twice = await call('POST', '/coupons', { code: 'WINTER25', percentOff: 10 });
  assert.equal(twice.status, 422);
  assert.equal(codeOf(twice.body), 'coupon-code-taken');
});

test('onUpdate holds for every item of a bulk update, each seeing its own patch as the request; one refused item keeps them all', async (t) => {
  const spec = mustLoad(`svcspec: 1
purpose: {name: Notes, summary: Notes that lock., users: [{name: writer, tasks: [write]}]}
resources:
  note:
    plural: notes
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      text: {type: string, required: true}
      locked: {type: boolean, default: false}
    onUpdate:
      guards:
        - {rule: '!old.locked || (has(request.locked) && !request.locked)', error: note-locked}
endpoints:
  note:
    create: {}
    read: {}
    update: {}
    bulkUpdate: {operation: bulk-update, max: 10}
errors:
  catalog:
    note-locked: {status: 409, title: Note locked, when: Changing a locked note without unlocking it.}
`);
  const store = await openSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'svcspec-domain-update-')), 'db.sqlite') });
  const app = await createApp({ spec, store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(base + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  const a = (await call('POST', '/notes', { text: 'a' })).body;
  const b = (await call('POST', '/notes', { text: 'b', locked: true })).body;
  const refused = await call('PATCH', '/notes', { items: [{ id: a.id, text: 'a2' }, { id: b.id, text: 'b2' }] });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'note-locked');
  assert.equal((await call('GET', `/notes/${a.id}`)).body.text, 'a', 'all or nothing');
  const unlocked = await call('PATCH', '/notes', { items: [{ id: a.id, text: 'a2' }, { id: b.id, text: 'b2', locked: false }] });
  assert.equal(unlocked.status, 200, JSON.stringify(unlocked.body));
  assert.equal((await call('GET', `/notes/${b.id}`)).body.text, 'b2', 'the unlocking patch was its own request');
});

test('a guard on each item reads each record the items name once, however many lines name it', async () => {
  const loaded = await loadSpec(example('orders'));
  const spec = loaded.value as NonNullable<typeof loaded.value>;
  const runtime = domainRuntime(spec, () => Date.now());
  const order = spec.resources.find((r) => r.name === 'order') as NonNullable<(typeof spec.resources)[number]>;
  const body = { customerEmail: 'a@example.org', lines: [{ product: 7, quantity: 1 }, { product: 7, quantity: 2 }, { product: 8, quantity: 1 }], shippingAddress: ADDRESS };
  const step = runtime.create(order, { principal: { id: 'ann', scopes: [] } } as never, body) as NonNullable<ReturnType<typeof runtime.create>>;
  const read = emptyRead();
  const asked: string[] = [];
  for (let round = 0; round < 5; round++) {
    const d = step.decide(undefined, { ...body, status: 'draft' }, read);
    if (!('more' in d)) {
      assert.ok(!('refuse' in d), JSON.stringify(d));
      break;
    }
    for (const r of d.more.records ?? []) (asked.push(`${r.resource}:${r.id}`), read.records.set(r.key, { id: r.id, version: 1, owner: null, data: { onSale: true, stock: 5 } } as never));
    for (const c of d.more.counts ?? []) read.counts.set(c.key, 0);
    for (const q of d.more.sequences ?? []) read.sequences.set(q.key, 1);
  }
  assert.deepEqual(asked.sort(), ['product:7', 'product:8']);
});

test('createApp refuses a guard on each item of a field that is no array of objects, naming its place, rather than checking it once', async () => {
  const spec = mustLoad(`svcspec: 1
purpose: {name: Notes, summary: Notes., users: [{name: writer, tasks: [write]}]}
resources:
  note:
    plural: notes
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      tags: {type: array, items: {type: string}}
    onCreate:
      guards:
        - {each: tags, rule: 'true', error: validation-failed}
endpoints:
  note: [create]
`);
  const store = await openSqliteStore({ path: ':memory:' });
  try {
    await assert.rejects(createApp({ spec, store }), /the guard at \/resources\/note\/onCreate\/guards\/0 is checked on each item of 'tags', which is not an array of objects/);
  } finally {
    await store.close();
  }
});
