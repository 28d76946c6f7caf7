/**
 * The open surface at run time (issue #13), over real HTTP on loopback: prose actions
 * answered 501 after authentication, scopes and validation, or performed by a builder's
 * handler inside the same pipeline (its answer checked); bulk creates all-or-nothing with
 * every failing item's pointer and one event per record; expansion of declared refs,
 * never of a record the caller may not read.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { ActionError, type ActionHandlers } from '../../src/serve/actions.ts';
import type { Store } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';
import { credentialHeaders } from './support/credentials.ts';
import { freshStore } from './support/open-app.ts';

const SPEC = mustLoad(readFileSync(new URL('./fixtures/open-surface.yaml', import.meta.url), 'utf8'));

interface Client {
  readonly store: Store;
  call(method: string, path: string, body?: unknown, as?: 'ann' | 'bob' | 'weak' | 'nobody', headers?: Record<string, string>): Promise<{ status: number; body: any; type: string }>;
}

async function served(t: TestContext, handlers?: ActionHandlers): Promise<Client> {
  const store = await freshStore();
  const app = await createApp({ spec: SPEC, store, ...(handlers ? { handlers } : {}) });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const who = {
    ann: await credentialHeaders(SPEC, store, { principal: 'ann' }),
    bob: await credentialHeaders(SPEC, store, { principal: 'bob' }),
    weak: await credentialHeaders(SPEC, store, { principal: 'weak', scopes: ['write'] }),
    nobody: {},
  };
  return {
    store,
    async call(method, path, body, as = 'ann', headers = {}) {
      const r = await fetch(address + path, { method, headers: { ...who[as], ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined, type: r.headers.get('content-type') ?? '' };
    },
  };
}

async function book(c: Client, title = 'Dune'): Promise<string> {
  const r = await c.call('POST', '/books', { title });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

// ---- actions ----------------------------------------------------------------------

test('a prose action without a handler: 501 in the declared shape, after authentication, scopes, the record and the body', async (t) => {
  const c = await served(t);
  const id = await book(c);
  assert.equal((await c.call('POST', `/books/${id}/remind`, { channel: 'email' }, 'nobody')).status, 401);
  assert.equal((await c.call('POST', `/books/${id}/remind`, { channel: 'email' }, 'weak')).status, 403, 'the remind scope is needed');
  const missing = await c.call('POST', '/books/00000000-0000-4000-8000-000000000000/remind', { channel: 'email' });
  assert.equal(missing.status, 404);
  const bad = await c.call('POST', `/books/${id}/remind`, { channel: 'pigeon', extra: 1 });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/channel', '/extra']);
  const r = await c.call('POST', `/books/${id}/remind`, { channel: 'email' });
  assert.equal(r.status, 501);
  assert.match(r.type, /application\/problem\+json/);
  assert.equal(r.body.code, 'not-implemented');
  assert.match(r.body.detail, /cannot perform book\.remind: its behaviour is stated in prose/);
  // A collection action, and one that takes no body.
  assert.equal((await c.call('POST', '/books/preview-price', { pages: 100 })).status, 501);
  assert.equal((await c.call('POST', '/books/preview-price', { pages: 0 })).status, 422);
  assert.equal((await c.call('POST', `/books/${id}/touch`, { any: 1 })).status, 422, 'touch takes no body');
  assert.equal((await c.call('POST', `/books/${id}/touch`)).status, 501);
  assert.equal((await c.call('GET', `/books/${id}/touch`)).status, 405);
  // An action on an owned record: another principal's is not there for the caller.
  const shelf = await c.call('POST', '/shelves', { name: 'mine' }, 'ann');
  assert.equal((await c.call('POST', `/shelves/${shelf.body.id}/share`, undefined, 'bob')).status, 404);
  assert.equal((await c.call('POST', `/shelves/${shelf.body.id}/share`, undefined, 'ann')).status, 501);
});

test('a handler performs the action inside the pipeline: its input, its answer checked, its declared errors', async (t) => {
  const seen: unknown[] = [];
  let answer: unknown = { sent: true, channel: 'sms' };
  let touchAnswer: unknown;
  const c = await served(t, {
    'book.remind': async (input) => {
      seen.push({ body: input.body, record: input.record, principal: input.principal?.id, params: input.params });
      if (input.body.channel === 'email') throw new ActionError('quiet-hours', 'Not at night.');
      return answer;
    },
    'book.previewPrice': (input) => ({ price: Number(input.body.pages) * 0.05 }),
    'book.touch': async (input) => touchAnswer ?? input.record,
    'shelf.share': async () => undefined,
  });
  const id = await book(c, 'Emma');
  const ok = await c.call('POST', `/books/${id}/remind`, { channel: 'sms' });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { sent: true, channel: 'sms' });
  assert.deepEqual(seen[0], { body: { channel: 'sms' }, record: { id, title: 'Emma' }, principal: 'ann', params: { id } });
  // Validation still comes first: the handler never sees a bad body.
  assert.equal((await c.call('POST', `/books/${id}/remind`, { channel: 'fax' })).status, 422);
  assert.equal(seen.length, 1);
  const declared = await c.call('POST', `/books/${id}/remind`, { channel: 'email' });
  assert.equal(declared.status, 409);
  assert.equal(declared.body.code, 'quiet-hours');
  assert.equal(declared.body.detail, 'Not at night.');
  answer = { sent: 'yes' };
  const wrong = await c.call('POST', `/books/${id}/remind`, { channel: 'sms' });
  assert.equal(wrong.status, 500, 'an answer outside the declared response is a fault');
  assert.equal(wrong.body.code, 'internal');
  assert.doesNotMatch(JSON.stringify(wrong.body), /yes/);
  assert.deepEqual((await c.call('POST', '/books/preview-price', { pages: 200 })).body, { price: 10 });
  const shelf = await c.call('POST', '/shelves', { name: 'mine' }, 'ann');
  const shared = await c.call('POST', `/shelves/${shelf.body.id}/share`, undefined, 'ann');
  assert.equal(shared.status, 204, 'response: none is 204 with no body');
  assert.equal(shared.body, undefined);
  const touched = await c.call('POST', `/books/${id}/touch`);
  assert.equal(touched.status, 200);
  assert.equal(touched.body.id, id);
  touchAnswer = { id, title: 'Emma', secret: 'leak' };
  assert.equal((await c.call('POST', `/books/${id}/touch`)).status, 500, 'a record with members a read never shows is not passed on');
});

test('a handler for something that is not an action of the spec refuses to start', async () => {
  const store = await freshStore();
  try {
    await assert.rejects(createApp({ spec: SPEC, store, handlers: { 'book.remnid': async () => ({}) } }), /not an action of the spec \(its actions: book\.remind, book\.previewPrice, book\.touch, shelf\.share\)/);
    await assert.rejects(createApp({ spec: SPEC, store, handlers: { 'book.create': async () => ({}) } }), /not an action/);
  } finally {
    await store.close();
  }
});

// ---- bulk ---------------------------------------------------------------------------

test('a bulk create writes every item in one transaction, 201 with the records, one event each', async (t) => {
  const c = await served(t);
  const before = await c.store.events.latest();
  const r = await c.call('POST', '/books/bulk', { items: [{ title: 'A' }, { title: 'B', year: 1999 }] });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(r.body.items.map((b: { title: string }) => b.title), ['A', 'B']);
  for (const b of r.body.items) assert.deepEqual((await c.call('GET', `/books/${b.id}`)).body, b);
  const events = await c.store.events.after(before, 10);
  assert.deepEqual(events.map((e) => [e.name, e.recordId]), r.body.items.map((b: { id: string }) => ['book.added', b.id]));
  assert.equal((await c.call('POST', '/books/bulk', { items: [{ title: 'C' }] }, 'nobody')).status, 401);
});

test('a bulk create with failing items writes nothing and lists every failing member by its item pointer', async (t) => {
  const c = await served(t);
  const r = await c.call('POST', '/books/bulk', { items: [{ title: 'ok' }, { title: '' }, { title: 'ok' }] });
  assert.equal(r.status, 422);
  assert.deepEqual(r.body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1/title']);
  const many = await c.call('POST', '/books/bulk', { items: [{ year: 1 }, { title: 'x' }, { title: 7 }] });
  assert.deepEqual(many.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/items/0/title', '/items/0/year', '/items/2/title']);
  const over = await c.call('POST', '/books/bulk', { items: [{ title: 'a' }, { title: 'b' }, { title: 'c' }, { title: 'd' }] });
  assert.equal(over.status, 422);
  assert.deepEqual(over.body.errors, [{ pointer: '/items', message: 'holds 4 items; at most 3 are allowed in one request' }]);
  assert.equal((await c.call('POST', '/books/bulk', { items: [] })).status, 422);
  assert.equal((await c.call('POST', '/books/bulk', [{ title: 'a' }])).status, 422);
  assert.deepEqual((await c.call('POST', '/books/bulk', { items: [{ title: 'a' }], more: 1 })).body.errors.map((e: { pointer: string }) => e.pointer), ['/more']);
  const list = await c.call('GET', '/books');
  assert.deepEqual(list.body.items, [], 'nothing of the refused requests was written');
  assert.equal(await c.store.events.latest(), 0, 'no event either');
});

test('a bulk create of client ids: a taken id or one repeated in the request refuses the whole request at that item', async (t) => {
  const c = await served(t);
  assert.equal((await c.call('POST', '/codes', { code: 'AAA', label: 'a' })).status, 201);
  const taken = await c.call('POST', '/codes/bulk', { items: [{ code: 'BBB', label: 'b' }, { code: 'AAA', label: 'again' }] });
  assert.equal(taken.status, 422);
  assert.deepEqual(taken.body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1/code']);
  const twice = await c.call('POST', '/codes/bulk', { items: [{ code: 'CCC', label: 'c' }, { code: 'CCC', label: 'c' }] });
  assert.deepEqual(twice.body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1/code']);
  assert.equal((await c.store.get('code', 'BBB')), undefined, 'the first item of the refused request is not kept');
  assert.equal((await c.call('POST', '/codes/bulk', { items: [{ code: 'DDD', label: 'd' }, { code: 'EEE', label: 'e' }] })).status, 201);
});

// ---- expansion --------------------------------------------------------------------------

test('?expand embeds declared refs; another principal\'s owned record stays an id; undeclared refs are refused', async (t) => {
  const c = await served(t);
  const dune = await book(c, 'Dune');
  const emma = await book(c, 'Emma');
  const shelf = await c.call('POST', '/shelves', { name: "ann's" }, 'ann');
  assert.equal(shelf.status, 201);
  const pick = await c.call('POST', '/picks', { book: dune, shelf: shelf.body.id, also: [emma, dune] }, 'ann');
  assert.equal(pick.status, 201, JSON.stringify(pick.body));
  const id = pick.body.id;

  const plain = await c.call('GET', `/picks/${id}`);
  assert.equal(plain.body.book, dune, 'no expand: the id');
  const mine = await c.call('GET', `/picks/${id}?expand=book,shelf,also`, undefined, 'ann');
  assert.equal(mine.status, 200);
  assert.deepEqual(mine.body.book, { id: dune, title: 'Dune' });
  assert.deepEqual(mine.body.shelf, { id: shelf.body.id, name: "ann's" });
  assert.deepEqual(mine.body.also.map((b: { title: string }) => b.title), ['Emma', 'Dune']);
  const theirs = await c.call('GET', `/picks/${id}?expand=book,shelf`, undefined, 'bob');
  assert.deepEqual(theirs.body.book, { id: dune, title: 'Dune' });
  assert.equal(theirs.body.shelf, shelf.body.id, "bob may not read ann's shelf: it stays an id");

  const listed = await c.call('GET', '/picks?expand=shelf,book', undefined, 'bob');
  assert.equal(listed.status, 200);
  assert.equal(listed.body.items[0].shelf, shelf.body.id);
  assert.equal(listed.body.items[0].book.title, 'Dune');
  const annList = await c.call('GET', '/picks?expand=shelf', undefined, 'ann');
  assert.equal(annList.body.items[0].shelf.name, "ann's");

  const refused = await c.call('GET', '/picks?expand=also');
  assert.equal(refused.status, 422, 'the list does not declare also');
  assert.equal(refused.body.errors[0].pointer, '/query/expand');
  assert.match(refused.body.errors[0].message, /'also' is not expandable here; expandable: book, shelf/);
  assert.equal((await c.call('GET', `/picks/${id}?expand=book.shelf`)).status, 422, 'deeper than the declared depth');
});

test('?expand goes as deep as expandDepth allows, and no deeper; a bulk create honours Idempotency-Key', async (t) => {
  const c = await served(t);
  const dune = await book(c, 'Dune');
  const shelf = await c.call('POST', '/shelves', { name: 'mine' }, 'ann');
  const pick = await c.call('POST', '/picks', { book: dune, shelf: shelf.body.id }, 'ann');
  const remark = await c.call('POST', '/remarks', { pick: pick.body.id, text: 'good' });
  assert.equal(remark.status, 201, JSON.stringify(remark.body));
  const deep = await c.call('GET', `/remarks/${remark.body.id}?expand=pick,pick.book,pick.shelf`, undefined, 'ann');
  assert.equal(deep.status, 200, JSON.stringify(deep.body));
  assert.equal(deep.body.pick.book.title, 'Dune');
  assert.equal(deep.body.pick.shelf.name, 'mine');
  const bobs = await c.call('GET', `/remarks/${remark.body.id}?expand=pick.shelf,pick.book`, undefined, 'bob');
  assert.equal(bobs.body.pick.shelf, shelf.body.id, "ann's shelf stays an id for bob, however deep");
  assert.equal(bobs.body.pick.book.title, 'Dune', 'pick.book alone embeds pick on the way');
  const tooDeep = await c.call('GET', `/remarks/${remark.body.id}?expand=pick.book.shelf`);
  assert.equal(tooDeep.status, 422);
  assert.match(tooDeep.body.errors[0].message, /goes 3 refs deep; this endpoint expands at most 2/);

  const key = { 'idempotency-key': 'bulk-1' };
  const first = await c.call('POST', '/books/bulk', { items: [{ title: 'X' }, { title: 'Y' }] }, 'ann', key);
  const again = await c.call('POST', '/books/bulk', { items: [{ title: 'X' }, { title: 'Y' }] }, 'ann', key);
  assert.equal(first.status, 201);
  assert.deepEqual(again.body, first.body, 'replayed, not written twice');
  assert.equal((await c.call('GET', '/books')).body.items.filter((b: { title: string }) => b.title === 'X').length, 1);
  assert.equal((await c.call('POST', '/books/bulk', { items: [{ title: 'Z' }] }, 'ann', key)).status, 422, 'the key with another body');
});

// ---- bulk update and bulk delete ----------------------------------------------------

test('a bulk update merges every patch in one transaction, 200 with the records, one updated event each', async (t) => {
  const c = await served(t);
  const [a, b] = [await book(c, 'A'), await book(c, 'B')];
  const before = await c.store.events.latest();
  const r = await c.call('PATCH', '/books', { items: [{ id: a, year: 1965 }, { id: b, title: 'B2' }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.items.map((x: { id: string; title: string; year?: number }) => [x.id, x.title, x.year]), [[a, 'A', 1965], [b, 'B2', undefined]]);
  for (const x of r.body.items) assert.deepEqual((await c.call('GET', `/books/${x.id}`)).body, x);
  const events = await c.store.events.after(before, 10);
  assert.deepEqual(events.map((e) => [e.name, e.recordId]), [['book.changed', a], ['book.changed', b]]);
  // A merge patch: null removes an optional member.
  assert.equal((await c.call('PATCH', '/books', { items: [{ id: a, year: null }] })).body.items[0].year, undefined);
  assert.equal((await c.call('PATCH', '/books', { items: [{ id: a, year: 1 }] }, 'nobody')).status, 401);
});

test('a bulk update with one bad item changes no record and names every failing member at its item pointer', async (t) => {
  const c = await served(t);
  const [a, b] = [await book(c, 'A'), await book(c, 'B')];
  const stored = async () => [(await c.call('GET', `/books/${a}`)).body, (await c.call('GET', `/books/${b}`)).body];
  const was = await stored();
  const before = await c.store.events.latest();
  const bad = await c.call('PATCH', '/books', { items: [{ id: a, title: 'fine' }, { id: b, title: '' }] });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1/title']);
  const missing = await c.call('PATCH', '/books', { items: [{ id: a, title: 'fine' }, { title: 'no id' }, { id: '7c3a4d55-0000-4000-8000-000000000000', title: 'x' }] });
  assert.equal(missing.status, 422);
  assert.deepEqual(missing.body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1/id']);
  const gone = await c.call('PATCH', '/books', { items: [{ id: a, title: 'fine' }, { id: '7c3a4d55-0000-4000-8000-000000000000', title: 'x' }] });
  assert.deepEqual(gone.body.errors, [{ pointer: '/items/1/id', message: 'names no book: there is none with this id' }]);
  const twice = await c.call('PATCH', '/books', { items: [{ id: a, title: 'x' }, { id: a, title: 'y' }] });
  assert.deepEqual(twice.body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1/id']);
  const over = await c.call('PATCH', '/books', { items: [{ id: a }, { id: b }, { id: a }, { id: b }] });
  assert.deepEqual(over.body.errors, [{ pointer: '/items', message: 'holds 4 items; at most 3 are allowed in one request' }]);
  assert.equal((await c.call('PATCH', '/books', { items: [] })).status, 422);
  assert.deepEqual(await stored(), was, 'every record as it was');
  assert.equal(await c.store.events.latest(), before, 'no event of a refused request');
});

test('a bulk delete removes every record in one transaction, 204, one deleted event each; one bad id removes none', async (t) => {
  const c = await served(t);
  const [a, b, d] = [await book(c, 'A'), await book(c, 'B'), await book(c, 'D')];
  const before = await c.store.events.latest();
  const bad = await c.call('POST', '/books/bulk-delete', { items: [a, '7c3a4d55-0000-4000-8000-000000000000', b] });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body.errors, [{ pointer: '/items/1', message: 'names no book: there is none with this id' }]);
  assert.deepEqual((await c.call('POST', '/books/bulk-delete', { items: [a, 5, a] })).body.errors.map((e: { pointer: string }) => e.pointer), ['/items/1', '/items/2']);
  assert.deepEqual((await c.call('POST', '/books/bulk-delete', { items: [a, b, d, a] })).body.errors.map((e: { pointer: string }) => e.pointer), ['/items']);
  assert.equal((await c.call('GET', `/books/${a}`)).status, 200, 'nothing removed by a refused request');
  assert.equal(await c.store.events.latest(), before);
  const r = await c.call('POST', '/books/bulk-delete', { items: [a, b] });
  assert.equal(r.status, 204);
  assert.equal(r.body, undefined);
  assert.equal((await c.call('GET', `/books/${a}`)).status, 404);
  assert.equal((await c.call('GET', `/books/${b}`)).status, 404);
  assert.equal((await c.call('GET', `/books/${d}`)).status, 200);
  const events = await c.store.events.after(before, 10);
  assert.deepEqual(events.map((e) => [e.name, e.recordId]), [['book.removed', a], ['book.removed', b]]);
  // Idempotency-Key, as on any POST: a retry answers as the first did instead of 422 for ids now gone.
  const key = { 'idempotency-key': 'del-1' };
  assert.equal((await c.call('POST', '/books/bulk-delete', { items: [d] }, 'ann', key)).status, 204);
  assert.equal((await c.call('POST', '/books/bulk-delete', { items: [d] }, 'ann', key)).status, 204);
});

test("on an owned resource, another principal's record fails a bulk update or delete as a missing one would, and is left alone", async (t) => {
  const c = await served(t);
  const mine = (await c.call('POST', '/shelves', { name: 'ann 1' })).body.id;
  const theirs = (await c.call('POST', '/shelves', { name: 'bob 1' }, 'bob')).body.id;
  const update = await c.call('PATCH', '/shelves', { items: [{ id: mine, name: 'x' }, { id: theirs, name: 'x' }] });
  assert.equal(update.status, 422);
  assert.deepEqual(update.body.errors, [{ pointer: '/items/1/id', message: 'names no shelf: there is none with this id' }], 'worded as for a record that does not exist');
  const remove = await c.call('POST', '/shelves/bulk-delete', { items: [theirs] });
  assert.deepEqual(remove.body.errors, [{ pointer: '/items/0', message: 'names no shelf: there is none with this id' }]);
  assert.equal((await c.call('GET', `/shelves/${theirs}`, undefined, 'bob')).body.name, 'bob 1');
  assert.equal((await c.call('GET', `/shelves/${mine}`)).body.name, 'ann 1');
  assert.equal((await c.call('PATCH', '/shelves', { items: [{ id: mine, name: 'renamed' }] })).body.items[0].name, 'renamed');
  assert.equal((await c.call('POST', '/shelves/bulk-delete', { items: [mine] })).status, 204);
  assert.equal((await c.call('GET', `/shelves/${mine}`)).status, 404);
});

test('a bulk update that loses a race to another write reads the record again and merges anew: no lost update', async (t) => {
  const inner = await freshStore();
  let raced = 0;
  // Between the bulk update's read and its write, another client changes the first record.
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'changeMany') {
        return async (...args: Parameters<Store['changeMany']>) => {
          const [resource, changes] = args;
          const first = changes[0];
          if (raced++ === 0 && first?.kind === 'update') {
            const now = await target.get(resource, first.id);
            assert.ok((await target.update(resource, first.id, { ...now?.data, year: 1999 })).ok);
          }
          return target.changeMany(...args);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const app = await createApp({ spec: SPEC, store });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(async () => {
    await app.close();
    await inner.close();
  });
  const headers = { ...(await credentialHeaders(SPEC, inner, { principal: 'ann' })), 'content-type': 'application/json' };
  const made = (await (await fetch(`${address}/books`, { method: 'POST', headers, body: JSON.stringify({ title: 'A' }) })).json()) as { id: string };
  const r = await fetch(`${address}/books`, { method: 'PATCH', headers, body: JSON.stringify({ items: [{ id: made.id, title: 'B' }] }) });
  const body = (await r.json()) as { items: Record<string, unknown>[] };
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(raced, 2, 'written on the second attempt');
  assert.deepEqual([body.items[0].title, body.items[0].year], ['B', 1999], "the other write's year is kept, the patch's title applied");
  assert.deepEqual(await (await fetch(`${address}/books/${made.id}`, { headers })).json(), body.items[0]);
});
