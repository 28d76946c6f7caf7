/**
 * A resource that declares no `id` (check warns, and lists the runtime default): its records
 * get ids of the type the spec gives its `id` field — numbers for an integer `id`, UUIDs
 * otherwise — so what serve hands out never contradicts the spec (svcspec proxy found the
 * contradiction: UUIDs in an integer field).
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { mustLoad } from '../support/spec.ts';

const spec = (idType: string) => mustLoad(`svcspec: 1
purpose: {name: Notes, summary: Notes., users: [{name: writer, tasks: [write]}]}
resources:
  note:
    plural: notes
    fields:
      id: {type: ${idType}, readOnly: true}
      text: {type: string, required: true}
endpoints:
  note: [create, read]
`);

async function create(t: TestContext, idType: string) {
  const store = await openSqliteStore({ path: ':memory:' });
  const app = await createApp({ spec: spec(idType), store });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => { await app.close(); await store.close(); });
  const made = await (await fetch(`${base}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"a"}' })).json() as { id: unknown };
  const read = await fetch(`${base}/notes/${String(made.id)}`);
  assert.equal(read.status, 200);
  return made.id;
}

test('no id declared, an integer id field: records are numbered 1, 2, …', async (t) => {
  assert.equal(await create(t, 'integer'), 1);
});

test('no id declared, a text id field: records get UUIDs', async (t) => {
  assert.match(String(await create(t, 'string')), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
