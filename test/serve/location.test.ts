/**
 * The Location of a created record (RFC 9110 §10.2.2) is where the spec reads it
 * (src/spec/conventions/paths.ts recordAddress), over real HTTP: a read under a prefix of its
 * own (`/admin/identities/{id}`, not `/{plural}/{id}`), a record read only through its parent
 * (`/projects/{projectId}/tasks/{id}`), and none at all where nothing reads the record. Found
 * by a new user's walk (the Ory Kratos import): every Location the reference sent was
 * `/identity/<id>`, a 404. The export and doc say the same, and the tester follows it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSpec } from '../../src/check/index.ts';
import { renderMarkdown } from '../../src/doc/index.ts';
import { toOpenApi } from '../../src/export/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { mustLoad } from '../support/spec.ts';
import { freshStore } from './support/open-app.ts';

const SPEC = `svcspec: 1
purpose:
  name: Admin
  summary: Identities kept under an admin prefix, and projects with their tasks.
  users:
    - name: admin
      tasks: [add an identity, add a task to a project]
resources:
  identity:
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      name: { type: string, required: true }
  project:
    plural: projects
    id: { field: id, assigned: sequence }
    fields:
      id: { type: integer, readOnly: true }
      name: { type: string, required: true }
  task:
    plural: tasks
    id: { field: id, assigned: sequence }
    fields:
      id: { type: integer, readOnly: true }
      project: { type: ref, resource: project, required: true }
      title: { type: string, required: true }
  note:
    plural: notes
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      text: { type: string, required: true }
  item:
    plural: items
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      name: { type: string, required: true }
states: { none: "Nothing here has a life cycle." }
endpoints:
  identity:
    create: { operation: create, path: /admin/identities }
    read: { operation: read, path: '/admin/identities/{id}' }
  project: [create, read]
  task:
    create: { operation: create, path: '/projects/{projectId}/tasks', request: [title] }
    read: { operation: read, path: '/projects/{projectId}/tasks/{id}' }
  note:
    create: { operation: create, path: /notes }
  item:
    create: {}
    update: {}
    history: { operation: action, method: GET, path: '/items/{id}/history', behaviour: Answers the item's past versions. }
authentication: { none: "A test fixture on loopback." }
events: { none: "Nothing is emitted." }
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    malformed-body: { status: 400, title: Malformed body }
    not-found: { status: 404, title: Not found }
limits: { none: "A test fixture." }
versioning: { none: "One version." }
`;

test('a created record\'s Location is the path the spec reads it at, filled from the record; none where nothing reads it', async (t) => {
  const spec = mustLoad(SPEC);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
  const store = await freshStore();
  const app = await createApp({ spec, store });
  t.after(async () => { await app.close(); await store.close(); });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: r.status, location: r.headers.get('location'), body: (await r.json()) as Record<string, unknown> };
  };
  const readBack = async (location: string | null, id: unknown) => {
    assert.ok(location);
    const r = await fetch(`${base}${location}`);
    assert.equal(r.status, 200, `GET ${location}`);
    assert.equal(((await r.json()) as { id: unknown }).id, id);
  };

  const ann = await post('/admin/identities', { name: 'Ann' });
  assert.equal(ann.status, 201);
  assert.equal(ann.location, `/admin/identities/${String(ann.body.id)}`, 'the read\'s own path, not /{plural}/{id}');
  await readBack(ann.location, ann.body.id);

  const project = await post('/projects', { name: 'Roof' });
  assert.equal(project.location, `/projects/${String(project.body.id)}`);
  const task = await post(`/projects/${String(project.body.id)}/tasks`, { title: 'Tiles' });
  assert.equal(task.status, 201);
  assert.equal(task.location, `/projects/${String(project.body.id)}/tasks/${String(task.body.id)}`, 'through its parent, the only path that reads it');
  await readBack(task.location, task.body.id);

  const note = await post('/notes', { text: 'hi' });
  assert.equal(note.status, 201);
  assert.equal(note.location, null, 'nothing reads a note: no Location made up');

  // No read: the record's own path, its update's, rather than an action's below it.
  const item = await post('/items', { name: 'Saw' });
  assert.equal(item.location, `/items/${String(item.body.id)}`);
});

test('the export declares a Location only where a path reads the record, and doc names the path', () => {
  const spec = mustLoad(SPEC);
  const doc = toOpenApi(spec).document as { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>> };
  assert.ok(doc.paths['/admin/identities']!.post!.responses['201']!.headers?.Location, 'identity: read at /admin/identities/{id}');
  assert.ok(doc.paths['/projects/{projectId}/tasks']!.post!.responses['201']!.headers?.Location, 'task: read through its project');
  assert.equal(doc.paths['/notes']!.post!.responses['201']!.headers?.Location, undefined, 'note: nothing reads it');
  const md = renderMarkdown(spec);
  assert.match(md, /Record at\W+`\/admin\/identities\/\{id\}`/);
  assert.doesNotMatch(md, /collection `\/identity`/, 'no collection path made up from the plural');
});
