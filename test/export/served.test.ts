/** The reference service serves its exports, and what it answers fits the exported schemas. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { toAsyncApi, toOpenApi } from '../../src/export/index.ts';
import { exampleSpec, serve } from '../serve/support/open-app.ts';
import { openApiErrors, schemaValidator } from './support.ts';
import { mustLoad } from '../support/spec.ts';

type Json = Record<string, any>;

test('served: GET /openapi.json and /asyncapi.json answer the exports of the default version', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { app } = await serve(t, spec);
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json(), toOpenApi(spec).document);
  assert.deepEqual(await openApiErrors(res.json()), []);
  const events = await app.inject({ method: 'GET', url: '/asyncapi.json' });
  assert.deepEqual(events.json(), toAsyncApi(spec).document);
  // Not an endpoint: no credentials needed.
  const anonymous = await app.inject({ method: 'GET', url: '/openapi.json', headers: { 'x-api-key': '' } });
  assert.equal(anonymous.statusCode, 200);
});

test('served: a spec that uses the path keeps it', async (t) => {
  const { app } = await serve(t, `
svcspec: 1
purpose: { name: T, summary: T. }
resources:
  doc:
    plural: docs
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
endpoints:
  doc: { list: { path: /openapi.json } }
`);
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.deepEqual(Object.keys(res.json()), ['items', 'next']);
});

test('served: records, pages and errors the service answers fit the exported schemas', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { app } = await serve(t, spec);
  const doc = toOpenApi(spec).document as Json;
  const fits = schemaValidator(doc);
  const schemaOf = (path: string, method: string, status: number) => {
    const listed = doc.paths[path][method].responses[String(status)];
    // An error response alike across operations is written once, in components.responses.
    const r = listed.$ref ? doc.components.responses[listed.$ref.replace('#/components/responses/', '')] : listed;
    return (Object.values(r.content) as Json[])[0].schema;
  };
  const created = await app.inject({ method: 'POST', url: '/books', payload: { title: 'Dune', authors: ['Frank Herbert'], coverUrl: null } });
  assert.equal(created.statusCode, 201);
  assert.deepEqual(fits(schemaOf('/books', 'post', 201), created.json()), []);
  const page = await app.inject({ method: 'GET', url: '/books?sort=-title&limit=5' });
  assert.deepEqual(fits(schemaOf('/books', 'get', 200), page.json()), []);
  const member = await app.inject({ method: 'POST', url: '/members', payload: { name: 'Ann', email: 'ann@example.org', pin: '1234' } });
  assert.equal(member.statusCode, 201);
  assert.deepEqual(fits(schemaOf('/members', 'post', 201), member.json()), []);
  // The request the export describes is one the service accepts, and the one it refuses is refused by both.
  const body = { title: 'Emma', authors: ['Jane Austen'] };
  assert.deepEqual(fits({ $ref: '#/components/schemas/BookCreate' }, body), []);
  assert.notDeepEqual(fits({ $ref: '#/components/schemas/BookCreate' }, { ...body, available: 3 }), []);
  const refused = await app.inject({ method: 'POST', url: '/books', payload: { ...body, available: 3 } });
  assert.equal(refused.statusCode, 422);
  assert.deepEqual(fits(schemaOf('/books', 'post', 422), refused.json()), []);
  const missing = await app.inject({ method: 'GET', url: '/books/00000000-0000-4000-8000-000000000000' });
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(fits(schemaOf('/books/{id}', 'get', 404), missing.json()), []);
  const loan = await app.inject({ method: 'POST', url: '/loans', payload: { book: created.json().id, member: member.json().id } });
  const illegal = await app.inject({ method: 'POST', url: `/loans/${loan.json().id}/return`, payload: { returnCondition: 'good' } });
  assert.equal(illegal.statusCode, 409);
  assert.deepEqual(fits(schemaOf('/loans/{id}/return', 'post', 409), illegal.json()), []);
});

test('served: a resource with an envelope is exported enveloped, and what the service takes and answers fits it (a valid OpenAPI 3.1 document)', async (t) => {
  const text = readFileSync(new URL('../../examples/library.yaml', import.meta.url), 'utf8').replace('    plural: books\n', '    plural: books\n    envelope: book\n');
  const spec = mustLoad(text);
  assert.equal(spec.resources.find((r) => r.name === 'book')?.envelope, 'book');
  const { app } = await serve(t, spec);
  const doc = toOpenApi(spec).document as Json;
  assert.deepEqual(await openApiErrors(doc), []);
  const fits = schemaValidator(doc);
  const post = doc.paths['/books'].post;
  const request = post.requestBody.content['application/json'].schema;
  assert.deepEqual(request.required, ['book']);
  const body = { book: { title: 'Dune', authors: ['Frank Herbert'] } };
  assert.deepEqual(fits(request, body), []);
  assert.notDeepEqual(fits(request, body.book), [], 'a bare record does not fit, as the service refuses it');
  const created = await app.inject({ method: 'POST', url: '/books', payload: body });
  assert.equal(created.statusCode, 201, created.body);
  assert.deepEqual(fits(post.responses['201'].content['application/json'].schema, created.json()), []);
  const id = (created.json() as { book: { id: string } }).book.id;
  const read = await app.inject({ method: 'GET', url: `/books/${id}` });
  assert.deepEqual(fits(doc.paths['/books/{id}'].get.responses['200'].content['application/json'].schema, read.json()), []);
  const page = await app.inject({ method: 'GET', url: '/books' });
  assert.deepEqual(fits(doc.paths['/books'].get.responses['200'].content['application/json'].schema, page.json()), [], 'a page of bare records');
  const bare = await app.inject({ method: 'POST', url: '/books', payload: body.book });
  assert.equal(bare.statusCode, 422);
  // The export carries the spec (x-svcspec-*): read back, the envelope is there.
  assert.match(JSON.stringify(doc), /"envelope":"book"/);
});
