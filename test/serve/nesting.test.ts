/**
 * Nested collections and singletons at run time (issue #13), over real HTTP on loopback:
 * a patient's appointments at /patients/{patientId}/appointments (list holds only the
 * parent's children, create sets the ref, a body naming another parent is 422, a child
 * through the wrong parent is 404 on every operation, the flat paths still work), a
 * clinician's own profile at /me (401 without credentials, 404 before it exists, PUT
 * creates it once, never another's), and journal entries that follow their journal's owner.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test, type TestContext } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders } from './support/credentials.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/clinic.yaml', import.meta.url));

interface Client {
  (method: string, path: string, body?: unknown, as?: Record<string, string> | null): Promise<{ status: number; body: any; headers: Headers }>;
  readonly ann: Record<string, string>;
  readonly bob: Record<string, string>;
}

async function serve(t: TestContext): Promise<Client> {
  const loaded = await loadSpec(FIXTURE);
  assert.ok(loaded.value, loaded.diagnostics.map((d) => d.message).join('; '));
  const spec: Spec = loaded.value;
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec, store });
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  const base = `http://127.0.0.1:${address.port}`;
  const ann = await credentialHeaders(spec, store, { principal: 'ann' });
  const bob = await credentialHeaders(spec, store, { principal: 'bob' });
  const call = async (method: string, path: string, body?: unknown, as: Record<string, string> | null = ann) => {
    const r = await fetch(base + path, {
      method,
      headers: { ...(as ?? {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: r.headers };
  };
  return Object.assign(call, { ann, bob });
}

describe('nested collections: /patients/{patientId}/appointments', () => {
  test('a nested create sets the ref from the path; the nested list holds only that parent\'s children; the flat list holds all', async (t) => {
    const call = await serve(t);
    const p1 = (await call('POST', '/patients', { name: 'Ada' })).body.id;
    const p2 = (await call('POST', '/patients', { name: 'Bo' })).body.id;
    assert.equal(typeof p1, 'number');
    const a = await call('POST', `/patients/${p1}/appointments`, { day: '2026-12-01' });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(a.body.patient, p1, 'the ref is set from the path');
    assert.equal(a.headers.get('location'), `/appointments/${a.body.id}`, 'the plain read path');
    const same = await call('POST', `/patients/${p1}/appointments`, { day: '2026-12-02', patient: p1 });
    assert.equal(same.status, 201, 'a body agreeing with the path is fine');
    const other = await call('POST', `/patients/${p2}/appointments`, { day: '2026-12-03' });
    assert.equal(other.status, 201);
    const flat = await call('POST', '/appointments', { day: '2026-12-04', patient: p2 });
    assert.equal(flat.status, 201);

    const list1 = await call('GET', `/patients/${p1}/appointments`);
    assert.equal(list1.status, 200);
    assert.deepEqual(list1.body.items.map((x: any) => x.id).sort(), [a.body.id, same.body.id].sort());
    const list2 = await call('GET', `/patients/${p2}/appointments`);
    assert.deepEqual(list2.body.items.map((x: any) => x.id).sort(), [other.body.id, flat.body.id].sort());
    const all = await call('GET', '/appointments');
    assert.equal(all.body.items.length, 4);
    // A filter that names another parent than the path's matches nothing.
    assert.deepEqual((await call('GET', `/patients/${p1}/appointments?patient=${p2}`)).body.items, []);
  });

  test('a body naming another parent than the path is 422 at the ref; an unknown parent is 404 on list and create', async (t) => {
    const call = await serve(t);
    const p1 = (await call('POST', '/patients', { name: 'Ada' })).body.id;
    const p2 = (await call('POST', '/patients', { name: 'Bo' })).body.id;
    const r = await call('POST', `/patients/${p1}/appointments`, { day: '2026-12-01', patient: p2 });
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'validation-failed');
    assert.deepEqual(r.body.errors.map((e: any) => e.pointer), ['/patient']);
    assert.equal((await call('GET', '/appointments')).body.items.length, 0, 'nothing was written');
    for (const missing of ['999', 'abc']) {
      const list = await call('GET', `/patients/${missing}/appointments`);
      assert.equal(list.status, 404);
      assert.equal(list.body.code, 'not-found');
      assert.match(list.body.detail, new RegExp(`no patient with id '${missing}'`));
      assert.equal((await call('POST', `/patients/${missing}/appointments`, { day: '2026-12-01' })).status, 404);
    }
  });

  test('a child through a parent it does not belong to is 404 on read, update, delete and transitions; through its own parent it is served', async (t) => {
    const call = await serve(t);
    const p1 = (await call('POST', '/patients', { name: 'Ada' })).body.id;
    const p2 = (await call('POST', '/patients', { name: 'Bo' })).body.id;
    const a = (await call('POST', `/patients/${p1}/appointments`, { day: '2026-12-01' })).body;
    const wrong = `/patients/${p2}/appointments/${a.id}`;
    for (const [method, path, body] of [['GET', wrong], ['PATCH', wrong, { reason: 'x' }], ['DELETE', wrong], ['POST', `${wrong}/cancel`]] as const) {
      const r = await call(method, path, body);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.code, 'not-found');
    }
    const right = `/patients/${p1}/appointments/${a.id}`;
    const read = await call('GET', right);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, (await call('GET', `/appointments/${a.id}`)).body, 'the same record nested and flat');
    const patched = await call('PATCH', right, { reason: 'check-up' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.reason, 'check-up');
    const moved = await call('PATCH', right, { patient: p2 });
    assert.equal(moved.status, 422, 'the path is not contradicted by the body');
    assert.deepEqual(moved.body.errors.map((e: any) => e.pointer), ['/patient']);
    const cancelled = await call('POST', `${right}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await call('DELETE', right)).status, 204);
    assert.equal((await call('GET', `/appointments/${a.id}`)).status, 404);
  });
});

describe('singletons: /me', () => {
  test('no credentials 401; none yet 404; PUT creates it (201) and then replaces it (200); PATCH changes it; each caller sees only their own', async (t) => {
    const call = await serve(t);
    assert.equal((await call('GET', '/me', undefined, null)).status, 401);
    const none = await call('GET', '/me');
    assert.equal(none.status, 404);
    assert.equal(none.body.code, 'not-found');
    assert.equal((await call('PATCH', '/me', { specialty: 'x' })).status, 404);
    const created = await call('PUT', '/me', { displayName: 'Dr Ann' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers.get('location'), '/me', 'read at /me: the resource has no read by id');
    const read = await call('GET', '/me');
    assert.equal(read.status, 200);
    assert.equal(read.body.displayName, 'Dr Ann');
    assert.equal(read.body.id, created.body.id);
    const replaced = await call('PUT', '/me', { displayName: 'Dr Ann Lee', specialty: 'GP' });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.id, created.body.id, 'the same record, replaced');
    const patched = await call('PATCH', '/me', { specialty: 'Surgery' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.displayName, 'Dr Ann Lee');
    assert.equal(patched.body.specialty, 'Surgery');
    assert.equal((await call('GET', '/me', undefined, call.bob)).status, 404, "bob does not see ann's profile");
    const bobs = await call('PUT', '/me', { displayName: 'Dr Bob' }, call.bob);
    assert.equal(bobs.status, 201);
    assert.notEqual(bobs.body.id, created.body.id);
    assert.equal((await call('GET', '/me')).body.displayName, 'Dr Ann Lee');
  });

  test('perOwner: one — a second create by the same owner is 409 already-exists; another owner may create theirs', async (t) => {
    const call = await serve(t);
    const first = await call('POST', '/profiles', { displayName: 'A' });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('location'), '/me');
    const again = await call('POST', '/profiles', { displayName: 'A2' });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'already-exists');
    assert.equal((await call('POST', '/profiles', { displayName: 'B' }, call.bob)).status, 201);
  });
});

describe("visibility: { parent: journal } — an entry is seen where its journal is", () => {
  test("another principal neither lists, reads, nor writes under ann's journal; nested and flat agree", async (t) => {
    const call = await serve(t);
    const journal = (await call('POST', '/journals', { title: 'Ann' })).body.id;
    const entry = await call('POST', `/journals/${journal}/entries`, { text: 'first' });
    assert.equal(entry.status, 201, JSON.stringify(entry.body));
    assert.equal(entry.body.journal, journal);
    assert.equal((await call('POST', '/entries', { journal, text: 'second' })).status, 201);
    assert.equal((await call('GET', '/entries')).body.items.length, 2);
    assert.equal((await call('GET', `/journals/${journal}/entries`)).body.items.length, 2);

    const { bob } = call;
    assert.deepEqual((await call('GET', '/entries', undefined, bob)).body.items, [], 'not listed for bob');
    assert.equal((await call('GET', `/entries/${entry.body.id}`, undefined, bob)).status, 404);
    assert.equal((await call('GET', `/journals/${journal}/entries`, undefined, bob)).status, 404, "ann's journal is not there for bob");
    assert.equal((await call('POST', `/journals/${journal}/entries`, { text: 'x' }, bob)).status, 404);
    const flat = await call('POST', '/entries', { journal, text: 'x' }, bob);
    assert.equal(flat.status, 422);
    assert.deepEqual(flat.body.errors.map((e: any) => e.pointer), ['/journal']);

    const bobs = (await call('POST', '/journals', { title: 'Bob' }, bob)).body.id;
    assert.equal((await call('POST', '/entries', { journal: bobs, text: 'mine' }, bob)).status, 201);
    assert.equal((await call('GET', '/entries', undefined, bob)).body.items.length, 1);
    assert.equal((await call('GET', '/entries')).body.items.length, 2, "ann's list is unchanged");
  });
});
