/**
 * Custom methods after a parameter (`/items/{id}:archive`, Google's API design guide), served:
 * the route starts (it crashed as a duplicate of `/items/{id}`), the action takes its POST with
 * the id it names, the read keeps `/items/{id}`, and the methods each path lacks are 405 with
 * that path's own Allow.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routePath } from '../../src/serve/routes.ts';
import { serve } from './support/open-app.ts';

const SPEC = `svcspec: 1
purpose: { name: Items, summary: Keeps items., users: [{ name: keeper, tasks: [archive an item] }] }
resources:
  item:
    plural: items
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      name: { type: string, required: true }
states: { none: No life cycle. }
endpoints:
  item:
    create: {}
    read: {}
    delete: {}
    archive:
      operation: action
      method: POST
      path: /items/{id}:archive
      behaviour: Moves the item to the archive.
    levels:
      operation: action
      method: POST
      path: /items/levels:trim
      behaviour: Trims the levels.
authentication: { none: A local test service. }
events: { none: No events. }
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    not-found: { status: 404, title: Not found }
    method-not-allowed: { status: 405, title: Method not allowed }
    not-implemented: { status: 501, title: Not implemented }
limits: { none: A local test service. }
versioning: { none: One version. }
`;

test('routePath: a parameter before a literal colon gets its pattern; other colons are find-my-way `::`', () => {
  assert.equal(routePath('/items/{id}:archive'), '/items/:id(^[^/:]+)::archive');
  assert.equal(routePath('/items/{id}'), '/items/:id');
  assert.equal(routePath('/items/levels:trim'), '/items/levels::trim');
  assert.equal(routePath('/v1/{name}/items/{id}:move'), '/v1/:name/items/:id(^[^/:]+)::move');
});

test('custom methods: /items/{id}:archive is served beside /items/{id}, each path with its own methods', async (t) => {
  const { app } = await serve(t, SPEC);
  const created = await app.inject({ method: 'POST', url: '/items', payload: { name: 'a' } });
  assert.equal(created.statusCode, 201, created.body);
  const id = (created.json() as { id: string }).id;
  const archived = await app.inject({ method: 'POST', url: `/items/${id}:archive` });
  assert.equal(archived.statusCode, 501, `the prose action answers 501, not a 404 or the read: ${archived.body}`);
  assert.equal((await app.inject({ method: 'POST', url: '/items/nope:archive' })).statusCode, 404, 'the action names a record that is not there');
  assert.equal((await app.inject({ method: 'GET', url: `/items/${id}` })).statusCode, 200);
  assert.equal((await app.inject({ method: 'POST', url: '/items/levels:trim' })).statusCode, 501);
  const put = await app.inject({ method: 'PUT', url: `/items/${id}:archive` });
  assert.equal(put.statusCode, 405);
  assert.equal(put.headers.allow, 'POST, OPTIONS');
  const options = await app.inject({ method: 'OPTIONS', url: `/items/${id}:archive` });
  assert.equal(options.statusCode, 204);
  assert.equal(options.headers.allow, 'POST, OPTIONS');
  const putItem = await app.inject({ method: 'PUT', url: `/items/${id}` });
  assert.equal(putItem.statusCode, 405);
  assert.deepEqual(String(putItem.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'OPTIONS']);
});
