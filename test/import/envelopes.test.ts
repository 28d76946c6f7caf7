/**
 * Record envelopes at import (src/import/openapi/pages.ts recordEnvelopeOf, records.ts
 * envelopeFromBodies): a body of one member holding a record schema is the record inside an
 * envelope, written as the resource's `envelope`; the wrapper schema is no resource; a list
 * named after its records (`{articles: [...], articlesCount}`) is a page of them, even where its
 * items are an inline listing of the record's properties; a record wrapped otherwise by one
 * operation is reported, and another resource's envelope is not taken for this one's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { importOpenApi } from '../../src/import/index.ts';
import { checkSpec } from '../../src/check/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-import-envelopes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DOC = `openapi: 3.0.3
info: { title: Conduit, version: '1' }
paths:
  /articles:
    get:
      responses:
        '200':
          description: Articles
          content:
            application/json:
              schema:
                type: object
                required: [articles, articlesCount]
                properties:
                  articles: { type: array, items: { type: object, properties: { slug: { type: string }, title: { type: string } } } }
                  articlesCount: { type: integer }
    post:
      requestBody: { content: { application/json: { schema: { type: object, required: [article], properties: { article: { $ref: '#/components/schemas/NewArticle' } } } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/ArticleResponse' } } } } }
  /articles/{slug}:
    parameters: [{ name: slug, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/ArticleResponse' } } } } } }
    put:
      requestBody: { content: { application/json: { schema: { type: object, properties: { article: { $ref: '#/components/schemas/NewArticle' } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Article' } } } } }
  /articles/{slug}/comments:
    parameters: [{ name: slug, in: path, required: true, schema: { type: string } }]
    post:
      operationId: addComment
      requestBody: { content: { application/json: { schema: { type: object, properties: { comment: { $ref: '#/components/schemas/NewComment' } } } } } }
      responses: { '200': { description: OK } }
components:
  schemas:
    Article:
      type: object
      required: [slug, title, body]
      properties: { slug: { type: string, readOnly: true }, title: { type: string }, body: { type: string } }
    NewArticle:
      type: object
      required: [title, body]
      properties: { title: { type: string }, body: { type: string } }
    ArticleResponse:
      type: object
      required: [article]
      properties: { article: { $ref: '#/components/schemas/Article' } }
    NewComment:
      type: object
      properties: { body: { type: string } }
`;

test('import: a record inside a one-member body is the resource\'s envelope; its wrapper is no resource; a list named after its records is a page with its total', async () => {
  const file = join(dir, 'conduit.yaml');
  writeFileSync(file, DOC);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const { spec } = r.value;
  const article = spec.resources.find((x) => x.name === 'article');
  assert.equal(article?.envelope, 'article');
  assert.ok(!spec.resources.some((x) => x.name === 'articleResponse'), 'the wrapper is not a resource');
  assert.ok(r.diagnostics.some((d) => d.code === 'import-schema-not-resource' && /ArticleResponse.*envelope of a Article, the record under 'article'/.test(d.message)));
  const byOp = Object.fromEntries(spec.endpoints.filter((e) => e.resource === 'article').map((e) => [e.name, e]));
  assert.deepEqual(byOp.create?.request, { kind: 'fields', fields: ['title', 'body'] }, 'the create takes the record out of its envelope');
  assert.equal(byOp.list?.responses.find((x) => x.status === 200)?.body, 'page', '{articles: [...], articlesCount} is a page of articles');
  assert.equal(byOp.read?.responses.find((x) => x.status === 200)?.body, 'resource');
  // The replace answers its record bare: one envelope a resource, so reported where it stands.
  const mixed = r.diagnostics.filter((d) => d.code === 'import-record-envelope-mixed');
  assert.equal(mixed.length, 1, mixed.map((d) => d.message).join('\n'));
  assert.match(mixed[0]!.message, /bare by PUT \/articles\/\{slug\}/);
  assert.ok(mixed[0]!.location && mixed[0]!.location.line > 1, 'placed at the bare answer');
  // `{comment: NewComment}` posted under an article is a comment's body, not an article's fields.
  const add = spec.endpoints.find((e) => e.name === 'addComment');
  assert.notDeepEqual(add?.request, { kind: 'fields', fields: ['body'] });
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`), []);
});

const TEAMS = `openapi: 3.0.3
info: { title: Teams, version: '1' }
paths:
  /teams:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Team' } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Team' } } } } }
  /teams/{teamId}:
    parameters: [{ name: teamId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Team' } } } } } }
  /people:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } } }
  /people/{personId}:
    parameters: [{ name: personId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } } } }
components:
  schemas:
    Person:
      type: object
      required: [name]
      properties: { id: { type: string, readOnly: true }, name: { type: string } }
    Address:
      type: object
      properties: { street: { type: string }, city: { type: string } }
    Team:
      type: object
      required: [address]
      properties: { address: { $ref: '#/components/schemas/Address' } }
`;

const CART = `openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /carts/{cartId}:
    parameters: [{ name: cartId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Cart' } } } } } }
    put:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Cart' } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Cart' } } } } }
  /items/{itemId}:
    parameters: [{ name: itemId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Item' } } } } } }
components:
  schemas:
    Item:
      type: object
      properties: { sku: { type: string }, qty: { type: integer }, price: { type: number } }
    Cart:
      type: object
      properties:
        items: { type: array, items: { type: object, properties: { sku: { type: string }, qty: { type: integer } } } }
`;

test('import: a record whose one member is another record stays a record (a team and its address), and a record holding an inline items list stays a record (a cart), not an envelope nor a page', async () => {
  for (const [name, text, resource] of [['teams.yaml', TEAMS, 'team'], ['cart.yaml', CART, 'cart']] as const) {
    const file = join(dir, name);
    writeFileSync(file, text);
    const r = await importOpenApi(file);
    assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
    const found = r.value.spec.resources.find((x) => x.name === resource);
    assert.ok(found, `${resource} is a resource: ${r.value.spec.resources.map((x) => x.name).join(', ')}`);
    assert.equal(found.envelope, undefined);
    assert.ok(r.value.spec.endpoints.some((e) => e.resource === resource && e.operation === 'read'), `${resource} is read at its item path`);
  }
});

test('import: an id its item paths name that the create leaves out is said to be the service\'s, and written read-only (the note said "the client gives it", and check warned on the import\'s own output)', async () => {
  const file = join(dir, 'conduit-id.yaml');
  writeFileSync(file, DOC.replace("slug: { type: string, readOnly: true }", 'slug: { type: string }'));
  const r = await importOpenApi(file);
  assert.ok(r.value);
  const article = r.value.spec.resources.find((x) => x.name === 'article')!;
  assert.deepEqual(article.id && [article.id.field, article.id.assigned], ['slug', 'service']);
  assert.equal(article.fields.find((f) => f.name === 'slug')?.readOnly, true);
  const note = r.diagnostics.find((d) => d.code === 'import-resource-id-read' && /'article'/.test(d.message));
  assert.match(note?.message ?? '', /the create's body leaves it out, so the service assigns it/);
  assert.deepEqual(checkSpec(r.value.spec, []).diagnostics.filter((d) => d.code === 'resource-id-not-readonly').map((d) => d.message), []);
});

const SESSIONS = `openapi: 3.0.3
info: { title: Sessions, version: '1' }
paths:
  /sessions/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Session' } } } } } }
    delete: { responses: { '204': { description: Gone } } }
  /identities:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/NewIdentity' } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Identity' } } } } }
  /identities/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Identity' } } } } } }
components:
  schemas:
    Session:
      type: object
      required: [id, active]
      properties: { id: { type: string, format: uuid }, active: { type: boolean } }
    Identity:
      type: object
      required: [id, traits]
      properties: { id: { type: string, format: uuid }, traits: { description: Whatever the identity schema asks for. } }
    NewIdentity:
      type: object
      required: [traits]
      properties: { traits: { description: Whatever the identity schema asks for. } }
`;

test('import: a required id no request carries (a session only read and deleted) is the service\'s, said once; an untyped member is type any, so the create that sends it is a create (Kratos)', async () => {
  const file = join(dir, 'sessions.yaml');
  writeFileSync(file, SESSIONS);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const session = r.value.spec.resources.find((x) => x.name === 'session')!;
  assert.deepEqual(session.id && [session.id.field, session.id.assigned], ['id', 'uuid']);
  assert.equal(session.fields.find((f) => f.name === 'id')?.readOnly, true);
  const notes = r.diagnostics.filter((d) => d.code === 'import-resource-id-read' && /'session'/.test(d.message));
  assert.equal(notes.length, 1, notes.map((d) => d.message).join('\n'));
  assert.match(notes[0]!.message, /no request of the document carries it, so the service assigns it \(uuid\)/);
  assert.ok(notes[0]!.location && notes[0]!.location.line > 1, 'placed at the id property');
  const identity = r.value.spec.resources.find((x) => x.name === 'identity')!;
  assert.equal(identity.fields.find((f) => f.name === 'traits')?.type, 'any');
  const create = r.value.spec.endpoints.find((e) => e.resource === 'identity' && e.operation === 'create');
  assert.deepEqual(create?.request, { kind: 'fields', fields: ['traits'] });
  assert.equal(identity.id?.assigned, 'uuid');
  assert.deepEqual(checkSpec(r.value.spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
});

const GRANTS = `openapi: 3.1.0
info: { title: Grants, version: '1' }
paths:
  /grants:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Grant' } } } } } } }
  /grants/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Grant' } } } } } }
    delete: { responses: { '204': { description: Revoked } } }
components:
  schemas:
    Grant:
      type: object
      required: [grant_id, scope]
      properties: { grant_id: { type: string }, scope: { type: string } }
`;

test('import: an id named after its collection (grant_id under /grants/{id}) that no request carries is the service\'s too, said once', async () => {
  const file = join(dir, 'grants.yaml');
  writeFileSync(file, GRANTS);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const grant = r.value.spec.resources.find((x) => x.name === 'grant')!;
  assert.deepEqual(grant.id && [grant.id.field, grant.id.assigned], ['grant_id', 'service']);
  assert.deepEqual(grant.fields.find((f) => f.name === 'grant_id') && { readOnly: grant.fields.find((f) => f.name === 'grant_id')!.readOnly }, { readOnly: true });
  const notes = r.diagnostics.filter((d) => d.code === 'import-resource-id-read' && /'grant'/.test(d.message));
  assert.equal(notes.length, 1, notes.map((d) => d.message).join('\n'));
  assert.match(notes[0]!.message, /no request of the document carries it, so the service assigns it \(service\)/);
  assert.deepEqual(checkSpec(r.value.spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
});
