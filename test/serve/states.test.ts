/**
 * Part 3 at run time: every legal transition of the example machines from every reachable
 * state, every illegal one refused with the declared error naming the current state and
 * the transitions allowed from it, concurrent transitions (exactly one wins), bodies,
 * If-Match, Idempotency-Key, and the error mapped or shaped by the spec.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Spec, StateMachine } from '../../src/spec/model.ts';
import { etagOf } from '../../src/serve/representation.ts';
import type { Store } from '../../src/store/store.ts';
import { bodyFor, endpointOf, routesTo, seedRecord, urlOf } from './support/machine-walk.ts';
import { gatedStore } from './support/gated-store.ts';
import { exampleSpec, freshStore, serve } from './support/open-app.ts';

interface Body {
  [k: string]: unknown;
  code?: string;
  status?: unknown;
  currentState?: string | null;
  allowedTransitions?: string[];
  errors?: { pointer: string; message: string }[];
}

async function post(app: FastifyInstance, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await app.inject({ method: 'POST', url, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
  return { status: r.statusCode, headers: r.headers, body: (r.body ? r.json() : undefined) as Body };
}

function machineOf(spec: Spec, resource: string): StateMachine {
  return spec.states.find((m) => m.resource === resource) as StateMachine;
}

/** A record of the resource brought to `state` through the API, by the shortest route. */
async function recordIn(app: FastifyInstance, spec: Spec, store: Store, resource: string, state: string): Promise<string> {
  const machine = machineOf(spec, resource);
  const r = spec.resources.find((x) => x.name === resource)!;
  const id = await seedRecord(store, r, machine);
  for (const t of routesTo(machine).get(state)!) {
    const res = await post(app, urlOf(endpointOf(spec, resource, t.name), id), await bodyFor(spec, store, resource, t));
    assert.equal(res.status, 200, `${resource}.${t.name} on the way to ${state}: ${JSON.stringify(res.body)}`);
  }
  return id;
}

const MACHINES: [string, string][] = [
  ['library.yaml', 'loan'],
  ['library.yaml', 'member'],
  ['helpdesk.yaml', 'ticket'],
];

for (const [file, resource] of MACHINES) {
  describe(`${file}: the ${resource} machine`, () => {
    test('every reachable state is reached, and every legal transition from it succeeds', async (t) => {
      const spec = await exampleSpec(file);
      const { app, store } = await serve(t, spec);
      const machine = machineOf(spec, resource);
      const routes = routesTo(machine);
      assert.ok(routes.size > 1);
      let legal = 0;
      for (const state of routes.keys()) {
        for (const tr of machine.transitions.filter((x) => x.from.includes(state))) {
          const id = await recordIn(app, spec, store, resource, state);
          const body = await bodyFor(spec, store, resource, tr);
          const r = await post(app, urlOf(endpointOf(spec, resource, tr.name), id), tr.requires.length ? body : undefined);
          assert.equal(r.status, 200, `${tr.name} from ${state}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body[machine.field], tr.to);
          for (const [k, v] of Object.entries(body)) assert.deepEqual(r.body[k], v, `${tr.name} writes ${k}`);
          const stored = (await store.get(resource, id))!;
          assert.equal(stored.data[machine.field], tr.to);
          assert.equal(r.headers.etag, etagOf(stored));
          legal++;
        }
      }
      assert.equal(legal, machine.transitions.reduce((n, x) => n + x.from.filter((s) => routes.has(s)).length, 0));
    });

    test('every illegal transition is refused with invalid-transition, the current state and what is allowed', async (t) => {
      const spec = await exampleSpec(file);
      const { app, store } = await serve(t, spec);
      const machine = machineOf(spec, resource);
      const declared = spec.errors.catalog.find((e) => e.code === 'invalid-transition')!;
      let illegal = 0;
      for (const state of routesTo(machine).keys()) {
        const allowed = machine.transitions.filter((x) => x.from.includes(state)).map((x) => x.name);
        const id = await recordIn(app, spec, store, resource, state);
        const before = (await store.get(resource, id))!;
        for (const tr of machine.transitions.filter((x) => !x.from.includes(state))) {
          const r = await post(app, urlOf(endpointOf(spec, resource, tr.name), id), await bodyFor(spec, store, resource, tr));
          assert.equal(r.status, declared.status, `${tr.name} from ${state}`);
          assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
          assert.equal(r.body.code, 'invalid-transition');
          assert.equal(r.body.title, declared.title);
          assert.equal(r.body.currentState, state);
          assert.deepEqual(r.body.allowedTransitions, allowed);
          assert.match(String(r.body.detail), new RegExp(`is '${state}'; '${tr.name}' starts only from`));
          illegal++;
        }
        assert.deepEqual(await store.get(resource, id), before, 'a refused transition changes nothing');
      }
      assert.ok(illegal > 0);
    });
  });
}

describe('concurrency', () => {
  test('of N concurrent approvals of one loan exactly one succeeds; the others are 409', async (t) => {
    const spec = await exampleSpec('library.yaml');
    const gated = gatedStore(await freshStore());
    const { app, store } = await serve(t, spec, gated.store);
    const id = await recordIn(app, spec, store, 'loan', 'requested');
    // All twelve read the loan in 'requested' before any writes it.
    const allRead = gated.gate(12);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => post(app, `/loans/${id}/approve`, { dueDate: `2026-07-${String(i + 10)}` })));
    await allRead;
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 1);
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 409);
      assert.equal(r.body.currentState, 'active');
    }
    const stored = (await store.get('loan', id))!;
    assert.equal(stored.version, 2, 'written once');
    assert.equal(stored.data.dueDate, ok[0].body.dueDate);
  });

  test('over a real socket: concurrent different transitions from one state, one winner', async (t) => {
    const spec = await exampleSpec('library.yaml');
    const gated = gatedStore(await freshStore());
    const { app, store, auth } = await serve(t, spec, gated.store);
    const id = await recordIn(app, spec, store, 'loan', 'active');
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    void gated.gate(5);
    const send = (path: string, body?: unknown) =>
      fetch(`${base}/loans/${id}/${path}`, { method: 'POST', headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const responses = await Promise.all([send('return', { returnCondition: 'good' }), send('declareLost'), send('markOverdue'), send('return', { returnCondition: 'worn' }), send('declareLost')]);
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, String(statuses));
    assert.equal(statuses.filter((s) => s === 409).length, 4, String(statuses));
    const winner = (await responses[statuses.indexOf(200)].json()) as Body;
    assert.equal((await store.get('loan', id))!.data.status, winner.status);
  });

  test('concurrent transitions that keep the state (renew) all succeed up to their guard, none lost', async (t) => {
    const spec = await exampleSpec('library.yaml');
    const gated = gatedStore(await freshStore());
    const { app, store } = await serve(t, spec, gated.store);
    const id = await recordIn(app, spec, store, 'loan', 'active');
    const start = (await store.get('loan', id))!.version;
    const allRead = gated.gate(5);
    // library.yaml allows three renewals (a guard on renew): of five at once, three succeed.
    const results = await Promise.all(Array.from({ length: 5 }, () => post(app, `/loans/${id}/renew`, { dueDate: '2026-08-01' })));
    await allRead;
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 422, 422]);
    const now = (await store.get('loan', id))!;
    assert.equal(now.version, start + 3);
    assert.equal(now.data.renewals, 3, 'every renewal counted once');
  });
});

describe('the request', () => {
  async function loan(t: TestContext, state = 'requested') {
    const spec = await exampleSpec('library.yaml');
    const { app, store } = await serve(t, spec);
    return { app, store, id: await recordIn(app, spec, store, 'loan', state) };
  }

  test('the required fields must be there; nothing else may', async (t) => {
    const { app, id } = await loan(t);
    const cases: [unknown, string, RegExp][] = [
      [undefined, '', /needs a body/],
      [{}, '/dueDate', /is required/],
      [{ dueDate: 'tomorrow' }, '/dueDate', /date/],
      [{ dueDate: '2026-07-01', notes: 'hi' }, '/notes', /not accepted by this request, which takes dueDate/],
      [{ dueDate: '2026-07-01', status: 'active' }, '/status', /not accepted/],
      [[{ dueDate: '2026-07-01' }], '', /JSON object/],
    ];
    for (const [body, pointer, message] of cases) {
      const r = await post(app, `/loans/${id}/approve`, body);
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.code, 'validation-failed');
      const v = r.body.errors?.find((e) => e.pointer === pointer);
      assert.ok(v, `${JSON.stringify(body)}: ${JSON.stringify(r.body.errors)}`);
      assert.match(v.message, message);
    }
  });

  test('no body and no Content-Type when nothing is required; {} too', async (t) => {
    const { app, id } = await loan(t, 'active');
    const r = await post(app, `/loans/${id}/markOverdue`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'overdue');
    const spec = await exampleSpec('library.yaml');
    const { app: app2, store } = await serve(t, spec);
    const member = await recordIn(app2, spec, store, 'member', 'pending');
    assert.equal((await post(app2, `/members/${member}/verify`, {})).status, 200);
    assert.equal((await post(app2, `/members/${member}/close`, { reason: 'x' })).status, 422, 'request: none takes no fields');
    assert.equal((await post(app2, `/members/${member}/close`)).status, 200);
  });

  test('a body that is not JSON is 415', async (t) => {
    const { app, id } = await loan(t);
    const r = await app.inject({ method: 'POST', url: `/loans/${id}/approve`, headers: { 'content-type': 'text/plain' }, payload: 'dueDate=2026-07-01' });
    assert.equal(r.statusCode, 415);
  });

  test('the state is checked before the body: an illegal transition is 409 whatever was sent', async (t) => {
    const { app, id } = await loan(t, 'active');
    const r = await post(app, `/loans/${id}/approve`, { nonsense: true });
    assert.equal(r.status, 409);
    assert.deepEqual(r.body.allowedTransitions, ['renew', 'markOverdue', 'return', 'declareLost']);
  });

  test('no such record is 404', async (t) => {
    const { app } = await loan(t);
    const r = await post(app, '/loans/6f1c1a52-0000-4d55-9a3f-2f8c6f0c1a52/approve', { dueDate: '2026-07-01' });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'not-found');
  });

  test('writeOnly fields are not in the answer', async (t) => {
    const spec = await exampleSpec('library.yaml');
    const { app, store } = await serve(t, spec);
    const m = spec.resources.find((r) => r.name === 'member')!;
    const id = await seedRecord(store, m, machineOf(spec, 'member'), { name: 'Ann', email: 'ann@example.org', pin: '1234' });
    const r = await post(app, `/members/${id}/verify`);
    assert.equal(r.status, 200);
    assert.equal(r.body.name, 'Ann');
    assert.ok(!('pin' in r.body));
    assert.equal(r.body.id, Number(id), 'sequence ids are numbers');
  });
});

describe('conditional and repeated requests', () => {
  test('If-Match: a stale tag is 412 (before the state is looked at), the current one or * passes', async (t) => {
    const spec = await exampleSpec('library.yaml');
    const { app, store } = await serve(t, spec);
    const id = await recordIn(app, spec, store, 'loan', 'requested');
    const stale = etagOf((await store.get('loan', id))!);
    await store.update('loan', id, { ...(await store.get('loan', id))!.data, notes: 'changed' });
    const current = etagOf((await store.get('loan', id))!);
    const r = await post(app, `/loans/${id}/approve`, { dueDate: '2026-07-01' }, { 'if-match': stale });
    assert.equal(r.status, 412);
    assert.equal(r.headers.etag, current);
    assert.equal((await post(app, `/loans/${id}/markOverdue`, undefined, { 'if-match': stale })).status, 412, 'illegal and stale: 412 first');
    const ok = await post(app, `/loans/${id}/approve`, { dueDate: '2026-07-01' }, { 'if-match': current });
    assert.equal(ok.status, 200);
    assert.notEqual(ok.headers.etag, current);
    assert.equal((await post(app, `/loans/${id}/markOverdue`, undefined, { 'if-match': '*' })).status, 200);
  });

  test('Idempotency-Key: a repeat is replayed, not refused; another body with the key is 422', async (t) => {
    const spec = await exampleSpec('library.yaml');
    const { app, store } = await serve(t, spec);
    const id = await recordIn(app, spec, store, 'loan', 'requested');
    const key = { 'idempotency-key': '"approve-once"' };
    const first = await post(app, `/loans/${id}/approve`, { dueDate: '2026-07-01' }, key);
    assert.equal(first.status, 200);
    const again = await post(app, `/loans/${id}/approve`, { dueDate: '2026-07-01' }, key);
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await store.get('loan', id))!.version, 2, 'applied once');
    const other = await post(app, `/loans/${id}/approve`, { dueDate: '2026-09-09' }, key);
    assert.equal(other.status, 422);
    assert.equal(other.body.code, 'idempotency-key-reused');
    const unkeyed = await post(app, `/loans/${id}/approve`, { dueDate: '2026-07-01' });
    assert.equal(unkeyed.status, 409, 'without the key it is a new request');
  });
});

const TINY = (errors: string, endpoints = 'job: [create, update, replace, start, finish]') => `
svcspec: 1
purpose: {name: Jobs, summary: Runs jobs., users: [{name: runner, tasks: [run jobs]}]}
resources:
  job:
    plural: jobs
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      name: {type: string, required: true}
      phase: {type: string, enum: [queued, running, done], readOnly: true}
      worker: {type: string}
      note: {type: string}
states:
  job:
    field: phase
    initial: queued
    transitions:
      start: {from: queued, to: running, requires: [worker]}
      finish: {from: running, to: done}
endpoints:
  ${endpoints}
authentication: {none: Open.}
events: {none: None.}
errors: ${errors}
limits: {none: None.}
versioning: {none: One version.}
`;

describe('what the spec declares', () => {
  test('invalid-transition mapped to its own code and status', async (t) => {
    const { app, store, spec } = await serve(t, TINY('{shape: problem, catalog: {job-not-ready: {status: 422, title: Job not ready, for: invalid-transition}}}'));
    const id = await seedRecord(store, spec.resources[0], spec.states[0]);
    const r = await post(app, `/jobs/${id}/finish`);
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'job-not-ready');
    assert.equal(r.body.title, 'Job not ready');
    assert.equal(r.body.currentState, 'queued');
    assert.deepEqual(r.body.allowedTransitions, ['start']);
  });

  test('a custom error shape carries the current state and the allowed transitions too', async (t) => {
    const { app, store, spec } = await serve(t, TINY('{shape: {mediaType: application/json, members: {code: error, title: message}}, catalog: {}}'));
    const id = await seedRecord(store, spec.resources[0], spec.states[0]);
    await store.update('job', id, { phase: 'done', name: 'j' });
    const r = await post(app, `/jobs/${id}/start`, { worker: 'w1' });
    assert.equal(r.status, 409);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.deepEqual(r.body, { message: 'Transition not allowed', error: 'invalid-transition', currentState: 'done', allowedTransitions: [] });
  });

  test('a request list beyond requires: the extra fields optional, the required ones not', async (t) => {
    const { app, store, spec } = await serve(t, TINY('{shape: problem}', 'job:\n    start: {request: [worker, note]}\n    finish: {}'));
    const a = await seedRecord(store, spec.resources[0], spec.states[0]);
    const missing = await post(app, `/jobs/${a}/start`, { note: 'n' });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body.errors?.map((e) => e.pointer), ['/worker']);
    const ok = await post(app, `/jobs/${a}/start`, { worker: 'w', note: 'n' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.note, 'n');
    const b = await seedRecord(store, spec.resources[0], spec.states[0]);
    assert.equal((await post(app, `/jobs/${b}/start`, { worker: 'w' })).status, 200);
  });
});

describe('an explicit transition endpoint', () => {
  test('its own path, parameter name and success status', async (t) => {
    const endpoints = 'job:\n    start: {}\n    finish: {method: POST, path: "/jobs/{jobId}/done", request: none, responses: {202: resource}}';
    const { app, store, spec } = await serve(t, TINY('{shape: problem}', endpoints));
    const id = await seedRecord(store, spec.resources[0], spec.states[0]);
    assert.equal((await post(app, `/jobs/${id}/start`, { worker: 'w' })).status, 200);
    const done = await post(app, `/jobs/${id}/done`);
    assert.equal(done.status, 202, JSON.stringify(done.body));
    assert.equal(done.body.phase, 'done');
    assert.equal((await post(app, `/jobs/${id}/finish`)).status, 404, 'no conventional path besides the declared one');
  });
});

describe('the state field outside transitions', () => {
  const SPEC = TINY('{shape: problem}', 'job: [create, read, update, replace, list, start, finish]');

  test('create sets the initial state, and refuses one given', async (t) => {
    const { app } = await serve(t, SPEC);
    const made = await post(app, '/jobs', { name: 'j' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.phase, 'queued');
    const given = await post(app, '/jobs', { name: 'j', phase: 'done' });
    assert.equal(given.status, 422);
    assert.match(given.body.errors?.find((e) => e.pointer === '/phase')?.message ?? '', /state.*transitions/);
  });

  test('update and replace refuse the state field; the record keeps its state', async (t) => {
    const { app, store } = await serve(t, SPEC);
    const id = (await post(app, '/jobs', { name: 'j' })).body.id as string;
    for (const method of ['PATCH', 'PUT'] as const) {
      const r = await app.inject({ method, url: `/jobs/${id}`, headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, payload: JSON.stringify({ name: 'k', phase: 'done' }) });
      assert.equal(r.statusCode, 422, `${method}: ${r.body}`);
      const errors = (r.json() as Body).errors ?? [];
      assert.ok(errors.some((e) => e.pointer === '/phase'), `${method}: ${r.body}`);
    }
    const replaced = await app.inject({ method: 'PUT', url: `/jobs/${id}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'k' }) });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal((replaced.json() as Body).phase, 'queued', 'a replace keeps the state');
    assert.equal((await store.get('job', id))!.data.phase, 'queued');
  });

  test('through the API end to end: create, start, finish, read, list by state', async (t) => {
    const { app } = await serve(t, SPEC);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await post(app, '/jobs', { name })).body.id as string);
    const started = await post(app, `/jobs/${ids[1]}/start`, { worker: 'w7' });
    assert.equal(started.status, 200);
    const finished = await post(app, `/jobs/${ids[1]}/finish`, undefined, { 'if-match': String(started.headers.etag) });
    assert.equal(finished.status, 200, JSON.stringify(finished.body));
    const read = await app.inject({ method: 'GET', url: `/jobs/${ids[1]}` });
    assert.equal(read.json().phase, 'done');
    assert.equal(read.headers.etag, finished.headers.etag);
    assert.deepEqual(read.json(), finished.body);
    const listed = await app.inject({ method: 'GET', url: '/jobs?phase=done' });
    assert.deepEqual(listed.json(), { items: [finished.body], next: null });
    const queued = await app.inject({ method: 'GET', url: '/jobs?phase=queued&sort=-name' });
    assert.deepEqual(queued.json().items.map((j: Body) => j.name), ['c', 'a']);
  });
});
