/**
 * The import's mapping, case by case, on small documents: fields and their constraints in
 * OpenAPI 3.0 and 3.1 (nullable, exclusive bounds, $ref siblings), what cannot be expressed,
 * security schemes and requirements, the error shape, input that is not OpenAPI at all, and
 * the conventions of real documents without svcspec's extensions (partial PUTs, fragments in
 * path keys, pagination parameters), one of them served and tested end to end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { importOpenApi } from '../../src/import/index.ts';
import { checkSpec } from '../../src/check/index.ts';
import { toOpenApi } from '../../src/export/openapi/index.ts';
import { serveForTester } from '../conformance/support.ts';
import type { Diagnostic } from '../../src/spec/diagnostics.ts';
import type { Field, Spec } from '../../src/spec/model.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-import-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function write(text: string, ext = 'yaml'): string {
  const file = join(dir, `doc${n++}.${ext}`);
  writeFileSync(file, text);
  return file;
}

async function run(text: string): Promise<{ spec: Spec; findings: readonly Diagnostic[] }> {
  const r = await importOpenApi(write(text));
  assert.ok(r.value, r.diagnostics.map((d) => `${d.code} ${d.message}`).join('\n'));
  return { spec: r.value.spec, findings: r.diagnostics };
}

const fieldOf = (spec: Spec, resource: string, name: string): Field | undefined => spec.resources.find((r) => r.name === resource)?.fields.find((f) => f.name === name);
const codes = (findings: readonly Diagnostic[], code: string) => findings.filter((f) => f.code === code).map((f) => f.message);

const THING_PATHS = `
paths:
  /things:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Thing' } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Thing' } } } } }
`;

test('import 3.0: types, formats, enums, bounds, lengths, patterns, required, readOnly, writeOnly, defaults, descriptions', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Things, version: '1' }
${THING_PATHS}
components:
  schemas:
    Thing:
      type: object
      required: [id, name, secret]
      properties:
        id: { type: string, format: uuid, readOnly: true }
        name: { type: string, minLength: 1, maxLength: 80, pattern: '^[a-z]+$', description: The name. }
        secret: { type: string, writeOnly: true }
        price: { type: number, minimum: 0, exclusiveMinimum: true, maximum: 100, multipleOf: 0.01 }
        note: { type: string, nullable: true, default: hi }
        kind: { type: string, enum: [a, b] }
        tags: { type: array, minItems: 1, maxItems: 5, uniqueItems: true, items: { type: string, maxLength: 10 } }
        size: { $ref: '#/components/schemas/Size', description: Ignored in 3.0. }
        extra: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: object, properties: { more: { type: boolean } } }] }
    Size: { type: integer, minimum: 1, description: A size. }
    Base: { type: object, required: [a], properties: { a: { type: string } } }
`);
  const f = (name: string) => fieldOf(spec, 'thing', name)!;
  // readOnly + required: required in responses only (OAS 3.0.3), so not what a client must send.
  assert.deepEqual([f('id').readOnly, f('id').required, f('id').format], [true, false, 'uuid']);
  assert.deepEqual([f('name').required, f('name').minLength, f('name').maxLength, f('name').pattern, f('name').description], [true, 1, 80, '^[a-z]+$', 'The name.']);
  assert.deepEqual([f('secret').writeOnly, f('secret').required], [true, true]);
  // 3.0's boolean exclusiveMinimum makes minimum exclusive.
  assert.deepEqual([f('price').exclusiveMinimum, f('price').minimum, f('price').maximum, f('price').multipleOf], [0, undefined, 100, 0.01]);
  assert.deepEqual([f('note').nullable, f('note').default, f('note').hasDefault], [true, 'hi', true]);
  assert.deepEqual(f('kind').enum, ['a', 'b']);
  assert.deepEqual([f('tags').minItems, f('tags').maxItems, f('tags').uniqueItems, f('tags').items?.type, f('tags').items?.maxLength], [1, 5, true, 'string', 10]);
  // A $ref to a non-object schema takes its constraints; 3.0 ignores the siblings of $ref.
  assert.deepEqual([f('size').type, f('size').minimum, f('size').description], ['integer', 1, 'A size.']);
  // allOf: properties and required lists united.
  assert.deepEqual(f('extra').properties?.map((p) => [p.name, p.type, p.required]), [['a', 'string', true], ['more', 'boolean', false]]);
  // Base, only a part of Thing's allOf, is no collection of its own.
  assert.deepEqual(spec.resources.map((r) => r.name), ['thing']);
  assert.equal(codes(findings, 'import-schema-not-resource').length, 2);
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.path}`), ['thing.create /things']);
});

test('import 3.1: type arrays with null, numeric exclusive bounds, const, $ref siblings; nullable is not a 3.1 keyword', async () => {
  const { spec, findings } = await run(`openapi: 3.1.0
info: { title: Things, version: '1' }
${THING_PATHS}
components:
  schemas:
    Thing:
      type: object
      properties:
        note: { type: [string, 'null'], maxLength: 5 }
        price: { type: number, exclusiveMinimum: 0, exclusiveMaximum: 10 }
        legacy: { type: string, nullable: true }
        kind: { const: fixed }
        size: { $ref: '#/components/schemas/Size', description: The thing's size. }
        multi: { type: [string, integer] }
    Size: { type: integer, minimum: 1, description: A size. }
`);
  const f = (name: string) => fieldOf(spec, 'thing', name);
  assert.deepEqual([f('note')?.type, f('note')?.nullable, f('note')?.maxLength], ['string', true, 5]);
  assert.deepEqual([f('price')?.exclusiveMinimum, f('price')?.exclusiveMaximum], [0, 10]);
  assert.equal(f('legacy')?.nullable, undefined);
  assert.equal(codes(findings, 'import-nullable-ignored').length, 1);
  assert.deepEqual([f('kind')?.type, f('kind')?.enum], ['string', ['fixed']]);
  assert.deepEqual([f('size')?.minimum, f('size')?.description], [1, "The thing's size."]);
  // Several types: any value, said so (the format has one type a field, or any).
  assert.equal(f('multi')?.type, 'any');
  assert.match(codes(findings, 'import-schema-inexpressible').join('\n'), /'multi' of 'thing' uses several types \(string, integer\), which svcspec cannot express; the field is written as any \(any value\)/);
});

test('import: what a field cannot say is reported where it stands, and the rest kept', async () => {
  const text = `openapi: 3.0.3
info: { title: Things, version: '1' }
${THING_PATHS}
components:
  schemas:
    Thing:
      type: object
      properties:
        code: { type: string, format: phone }
        choice: { oneOf: [{ type: string }, { type: integer }] }
        either: { anyOf: [{ type: string, maxLength: 3 }, { type: string, format: email }] }
        '@type': { type: string }
        '1st': { type: string }
        labels: { type: object, additionalProperties: { type: string } }
        free: {}
`;
  const { spec, findings } = await run(text);
  const f = (name: string) => fieldOf(spec, 'thing', name);
  assert.deepEqual([f('code')?.type, f('code')?.format], ['string', undefined]);
  assert.match(codes(findings, 'import-format-unknown')[0], /'code' of 'thing' has the format 'phone'/);
  assert.equal(f('choice')?.type, 'any');
  assert.equal(f('either')?.type, 'string');
  // Members named as real APIs name them are fields as they travel (@type, _links, $kind); a name the format cannot hold is reported.
  assert.equal(f('@type')?.type, 'string');
  assert.equal(f('1st'), undefined);
  assert.deepEqual(codes(findings, 'import-field-name').length, 1);
  assert.match(codes(findings, 'import-field-name')[0], /'1st'/);
  assert.equal(f('labels')?.type, 'object');
  // No type at all is any JSON value (JSON Schema's {}), which the format says as it is: no finding.
  assert.equal(f('free')?.type, 'any');
  const inexpressible = codes(findings, 'import-schema-inexpressible').join('\n');
  for (const what of ['oneOf of string, integer', 'anyOf', 'additionalProperties']) assert.ok(inexpressible.includes(what), what);
  assert.ok(!inexpressible.includes("'free'"), 'a field of no type is said as any, not reported');
  const located = findings.find((d) => d.code === 'import-format-unknown');
  assert.equal(located?.pointer, '/components/schemas/Thing/properties/code/format');
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('format: phone'));
  assert.deepEqual([located?.location?.line, located?.location?.column], [line + 1, lines[line].indexOf('phone') + 1]);
});

test('import: paths become CRUD where they are, explicit endpoints otherwise, other parameters and methods reported', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /orders:
    get: { operationId: listOrders, responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Order' } } } } } } }
  /orders/{orderId}:
    patch:
      requestBody: { content: { application/json: { schema: { type: object, properties: { note: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
    head: { responses: { '200': { description: OK } } }
  /orders/{orderId}/cancel:
    post: { operationId: cancelOrder, responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } } }
  /customers/{customerId}/orders:
    get:
      parameters: [{ name: customerId, in: path, required: true, schema: { type: string } }, { name: since, in: query, schema: { type: string } }]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Order' } } } } } }
components:
  schemas:
    Order: { type: object, properties: { id: { type: integer, readOnly: true }, note: { type: string } } }
`);
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.method} ${e.path}`), [
    'order.list GET /orders', 'order.update PATCH /orders/{id}', 'order.cancelOrder POST /orders/{id}/cancel', 'order.getCustomersOrders GET /customers/{customerId}/orders',
  ]);
  const update = spec.endpoints.find((e) => e.id === 'order.update')!;
  assert.deepEqual(update.request, { kind: 'fields', fields: ['note'] });
  assert.equal(spec.resources[0].plural, 'orders');
  assert.match(codes(findings, 'import-method-unsupported')[0], /^HEAD \/orders\/\{orderId\}/);
  // Every path parameter is carried (the record's id, or declared with its shape); the query's are not.
  assert.deepEqual(codes(findings, 'import-parameters').map((m) => /parameters svcspec has no place for: (.*); they/.exec(m)![1]), ['query since']);
  assert.match(codes(findings, 'import-endpoint-named').join('\n'), /POST \/orders\/\{orderId\}\/cancel is not a standard operation of 'order'; it is written as the action 'order.cancelOrder', its behaviour the document's own prose/);
  const cancel = spec.endpoints.find((e) => e.id === 'order.cancelOrder')!;
  assert.deepEqual([cancel.operation, cancel.action?.target], ['action', 'record']);
  const byCustomer = spec.endpoints.find((e) => e.id === 'order.getCustomersOrders')!;
  assert.deepEqual([byCustomer.operation, byCustomer.action?.target, byCustomer.params.map((p) => [p.name, p.binding.kind, p.declared])], ['action', 'collection', [['customerId', 'value', true]]]);
});

test('import: a parameter named id after the record\'s own is named apart, so no route binds two values to one name (RealWorld)', async () => {
  const { spec } = await run(`openapi: 3.0.3
info: { title: Conduit, version: '1' }
paths:
  /articles:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Article' } } } } } } }
  /articles/{slug}:
    parameters: [{ name: slug, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Article' } } } } } }
    delete: { responses: { '204': { description: Gone } } }
  /articles/{slug}/comments/{id}:
    delete:
      operationId: deleteArticleComment
      parameters: [{ name: slug, in: path, required: true, schema: { type: string } }, { name: id, in: path, required: true, schema: { type: integer } }]
      responses: { '200': { description: OK } }
components:
  schemas:
    Article: { type: object, properties: { slug: { type: string }, title: { type: string } } }
`);
  const remove = spec.endpoints.find((e) => e.id === 'article.deleteArticleComment')!;
  assert.equal(remove.path, '/articles/{id}/comments/{commentId}');
  assert.deepEqual(remove.params.map((p) => [p.name, p.binding.kind, p.binding.kind === 'value' ? p.binding.shape.type : undefined]), [['id', 'id', undefined], ['commentId', 'value', 'integer']]);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`), []);
});

test('import: security schemes and requirements become part 5; what the format lacks is reported', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Notes, version: '1' }
security: [{ jwt: [] }]
paths:
  /notes:
    get: { security: [], responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Note' } } } } } } }
    post:
      security: [{ oauth: [notes:write] }]
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
      responses: { '201': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } } }
  /notes/{id}:
    get:
      security: [{ key: [], jwt: [] }]
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } } }
components:
  schemas:
    Note: { type: object, properties: { title: { type: string } } }
  securitySchemes:
    key: { type: apiKey, in: query, name: api_key }
    jwt: { type: http, scheme: bearer, bearerFormat: JWT }
    oauth: { type: oauth2, flows: { clientCredentials: { tokenUrl: /oauth/token, scopes: { 'notes:write': Write notes } } } }
    session: { type: apiKey, in: cookie, name: sid }
`);
  const auth = spec.authentication;
  assert.deepEqual(auth.schemes.map((s) => s.type === 'apiKey' ? [s.name, s.in, s.param] : s.type === 'bearer' ? [s.name, s.tokens] : s.type === 'oauth2' ? [s.name, s.tokenPath] : [s.name]), [
    ['key', 'query', 'api_key'], ['jwt', 'jwt'], ['oauth', '/oauth/token'],
  ]);
  assert.deepEqual(auth.scopes.map((s) => [s.name, s.description]), [['notes:write', 'Write notes']]);
  assert.deepEqual(auth.defaultScopes, []);
  const by = (id: string) => spec.endpoints.find((e) => e.id === id)!.auth;
  assert.deepEqual(by('note.list'), { public: true, schemes: [], scopes: [] });
  assert.deepEqual(by('note.create')?.scopes, ['notes:write']);
  assert.deepEqual(by('note.read'), { public: false, schemes: ['key', 'jwt', 'oauth'], scopes: [] });
  assert.match(codes(findings, 'import-auth-scheme')[0], /'session' \(an API key in a cookie\)/);
  assert.match(codes(findings, 'import-auth-combined')[0], /GET \/notes\/\{id\} requires key and jwt together/);
  assert.equal(codes(findings, 'import-auth-schemes').length, 2);
});

test('import: a security requirement naming a scheme the document does not declare is said to be a dangling reference, not "accepts only" it (Kratos\'s sessionToken)', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Notes, version: '1' }
security: [{ key: [] }]
paths:
  /notes:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Note' } } } } } } }
  /settings:
    post: { security: [{ sessionToken: [] }], responses: { '204': { description: Done } } }
components:
  schemas:
    Note: { type: object, properties: { title: { type: string } } }
  securitySchemes:
    key: { type: apiKey, in: header, name: X-Key }
`);
  assert.match(codes(findings, 'import-auth-undeclared')[0] ?? '', /POST \/settings, name the security scheme 'sessionToken', which components\.securitySchemes does not declare/);
  assert.deepEqual(codes(findings, 'import-auth-schemes'), [], 'no "accept only sessionToken"');
  const settings = spec.endpoints.find((e) => e.path === '/settings');
  assert.equal(settings?.auth?.public, false, 'it still needs a credential');
});

test('import: an RFC 9457 error body with a code member is the problem shape; OpenAPI statuses are no codes', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Notes, version: '1' }
paths:
  /notes:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
      responses:
        '201': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
        '422': { $ref: '#/components/responses/Problem' }
        '409': { $ref: '#/components/responses/Problem' }
components:
  responses:
    Problem: { description: Refused, content: { application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } } } }
  schemas:
    Note: { type: object, properties: { title: { type: string } } }
    Problem: { type: object, properties: { type: { type: string }, title: { type: string }, status: { type: integer }, detail: { type: string }, code: { type: string } } }
`);
  assert.equal(spec.errors.shape?.kind, 'problem');
  assert.deepEqual(spec.errors.catalog, []);
  assert.match(codes(findings, 'import-error-codes')[0], /\(409, 422\)/);
  assert.deepEqual(spec.endpoints[0].responses.map((r) => [r.status, r.body]), [[201, 'resource'], [409, 'error'], [422, 'error']]);
  assert.deepEqual(spec.resources.map((r) => r.name), ['note']);
});

test('import: input that is not an OpenAPI 3.0/3.1/3.2 document is refused with a clear finding', async () => {
  const cases: [string, string, RegExp, number?][] = [
    ['swagger: "2.0"\ninfo: { title: T, version: "1" }\npaths: {}\n', 'import-not-openapi', /it is Swagger 2\.0; convert it to OpenAPI 3 first/, 1],
    ['openapi: 3.0\ninfo: { title: T, version: "1" }\npaths: {}\n', 'import-not-openapi', /must be a string \("3\.1\.0"\), not 3/, 1],
    ['openapi: 4.0.0\ninfo: { title: T, version: "1" }\npaths: {}\n', 'import-not-openapi', /its version is 4\.0\.0; svcspec imports 3\.0\.x, 3\.1\.x and 3\.2\.x/],
    ['svcspec: 1\npurpose: { name: X }\n', 'import-not-openapi', /has no 'openapi' member/],
    ['- a\n- b\n', 'import-not-openapi', /its top level is a list, not a map/],
    ['', 'import-not-openapi', /the file is empty/],
    ['openapi: 3.0.3\ninfo: { title: T, version: "1" }\npaths:\n  /a:\n    get: { summary: no responses }\n', 'import-openapi-invalid', /at \/paths\/~1a\/get, it must have required property 'responses'/, 5],
    ['openapi: 3.0.3\ninfo: { title: T, version: "1" }\n', 'import-openapi-invalid', /it has no 'paths'/],
    ['openapi: 3.0.3\ninfo: [unclosed\n', 'syntax-error', /YAML syntax/],
  ];
  for (const [text, code, message, line] of cases) {
    const r = await importOpenApi(write(text));
    assert.equal(r.value, undefined, text);
    assert.equal(r.diagnostics.length, 1, text);
    const [d] = r.diagnostics;
    assert.equal(d.code, code, text);
    assert.equal(d.severity, 'error');
    assert.match(d.message, message);
    if (line !== undefined) assert.equal(d.location?.line, line, text);
  }
  const missing = await importOpenApi(join(dir, 'nope.yaml'));
  assert.deepEqual(missing.diagnostics.map((d) => d.code), ['file-not-found']);
  const folder = await importOpenApi(dir);
  assert.deepEqual(folder.diagnostics.map((d) => d.code), ['file-unreadable']);
});

test('import: a JSON document reads as well as YAML, with positions', async () => {
  const file = write(JSON.stringify({
    openapi: '3.1.0', info: { title: 'J', version: '1' },
    paths: { '/items': { get: { responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } } } } } } },
    components: { schemas: { Item: { type: 'object', properties: { name: { type: 'string' } } } } },
  }, null, 2), 'json');
  const r = await importOpenApi(file);
  assert.ok(r.value);
  assert.deepEqual(r.value.spec.endpoints.map((e) => e.id), ['item.list']);
  const page = r.diagnostics.find((d) => d.code === 'import-list-page');
  assert.equal(page?.location?.file, file);
  assert.ok((page?.location?.line ?? 0) > 1);
});

test('import: a PUT of the record whose body carries the record\'s own id (PUT /users/{id} with {id, name, email}) is its replace', async () => {
  const { spec } = await run(`openapi: 3.0.3
info: { title: U, version: '1' }
paths:
  /users:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } } }
  /users/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
    get:
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } } }
    put:
      requestBody: { content: { application/json: { schema: { type: object, properties: { id: { type: integer }, name: { type: string }, email: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } } }
components:
  schemas:
    User: { type: object, required: [name], properties: { id: { type: integer, readOnly: true }, name: { type: string }, email: { type: string } } }
`);
  const put = spec.endpoints.find((e) => e.method === 'PUT');
  assert.deepEqual([put?.id, put?.path], ['user.replace', '/users/{id}']);
});

test('import: a PUT that takes some of the writable fields is an update under PUT; one that takes them all a replace', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Notes, version: '1' }
paths:
  /comments:
    post:
      requestBody: { content: { application/json: { schema: { type: object, properties: { message: { type: string } , item: { type: string } } } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Comment' } } } } }
  /comments/{comment_id}:
    put:
      requestBody: { content: { application/json: { schema: { type: object, properties: { message: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Comment' } } } } }
  /notes/{note_id}:
    put:
      requestBody: { content: { application/json: { schema: { type: object, properties: { text: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } } }
components:
  schemas:
    Comment:
      type: object
      required: [id, type, message]
      properties:
        id: { type: string, readOnly: true }
        type: { type: string, enum: [comment], description: The value will always be comment. }
        message: { type: string }
        item: { type: string }
    Note: { type: object, properties: { id: { type: string, readOnly: true }, text: { type: string } } }
`);
  const ops = Object.fromEntries(spec.endpoints.map((e) => [e.id, [e.method, e.path, e.request]]));
  assert.deepEqual(ops['comment.update'], ['PUT', '/comments/{id}', { kind: 'fields', fields: ['message'] }]);
  assert.deepEqual(ops['note.replace'], ['PUT', '/notes/{id}', { kind: 'fields', fields: ['text'] }]);
  // Required by the schema, yet the create does not take it: the answer's to hold, not the client's to send.
  // And `message`, which the create takes but its own schema does not require: the client may leave it out.
  assert.deepEqual(['type', 'message'].map((n) => fieldOf(spec, 'comment', n)?.required), [false, false]);
  assert.match(codes(findings, 'import-required-not-sent').join('\n'), /POST \/comments, the create of 'comment', does not take 'type', which its schema marks required/);
  assert.match(codes(findings, 'import-required-optional-on-create').join('\n'), /POST \/comments, the create of 'comment', takes 'message' without requiring it/);
});

test("import: a path key's fragment is no part of the route; a body carrying an id beside a service-assigned one names another record", async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Files, version: '1' }
paths:
  /files/{file_id}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/File' } } } } } }
  /files/{file_id}#add_shared_link:
    put:
      operationId: addSharedLink
      requestBody: { content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/File' } } } } }
  /files/{file_id}#update_shared_link:
    put:
      operationId: updateSharedLink
      requestBody: { content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/File' } } } } }
  /files/{file_id}/versions/current:
    post:
      operationId: promoteVersion
      requestBody: { content: { application/json: { schema: { type: object, properties: { id: { type: string }, name: { type: string } } } } } }
      responses: { '201': { description: Made } }
components:
  schemas:
    File: { type: object, properties: { id: { type: string, readOnly: true }, name: { type: string } } }
`);
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.method} ${e.path}`), ['file.read GET /files/{id}', 'file.replace PUT /files/{id}', 'file.promoteVersion POST /files/{id}/versions/current']);
  assert.match(codes(findings, 'import-path-fragment')[0], /^PUT \/files\/\{file_id\}#add_shared_link: .* written at \/files\/\{file_id\}\.$/);
  assert.match(codes(findings, 'import-route-duplicate')[0], /^PUT \/files\/\{file_id\}#update_shared_link is the same HTTP route as PUT \/files\/\{file_id\}#add_shared_link/);
  // `{id, name}` is not some fields of a file (its id is the service's, and in the path): the action's own body, reported.
  const promote = spec.endpoints.find((e) => e.id === 'file.promoteVersion')!;
  assert.deepEqual(promote.request.kind === 'shape' && promote.request.fields.map((f) => `${f.name}:${f.type}`), ['id:string', 'name:string']);
  assert.match(codes(findings, 'import-action-own-body').join('\n'), /request body of POST \/files\/\{file_id\}\/versions\/current .* written as the action's own fields \(id, name\)/);
});

/** A small shop whose `GET /orders` takes `params` (query parameters, YAML flow items); `more` adds paths. */
function pagedShop(params: readonly string[], more = ''): string {
  return `openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /orders:
    get:
      parameters: [${params.join(', ')}]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Order' } } } } } }
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
  /orders/{orderId}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } } }
    delete: { responses: { '204': { description: Gone } } }
${more}components:
  schemas:
    Order: { type: object, required: [note], properties: { id: { type: integer, readOnly: true }, note: { type: string, maxLength: 40 } } }
    Customer: { type: object, properties: { id: { type: integer, readOnly: true }, name: { type: string } } }
`;
}
const q = (name: string, schema = '{ type: string }') => `{ name: ${name}, in: query, schema: ${schema} }`;
const SIZE = '{ type: integer, minimum: 1, default: 20, maximum: 50 }';

test('import: page numbers (?page=&per_page=) become limits.pagination, sizes from the size parameter\'s schema; the part is given, the parameters carried', async () => {
  const { spec, findings } = await run(pagedShop([q('page', '{ type: integer, minimum: 1 }'), q('per_page', SIZE), q('note')]));
  const { pointer: _, ...p } = spec.limits.pagination!;
  assert.deepEqual(p, { style: 'page', defaultSize: 20, maxSize: 50, overMax: 'reject', sizeParam: 'per_page', positionParam: 'page', sortParam: 'sort', body: { kind: 'array' }, unpaged: 'first-page' });
  assert.equal(spec.parts.limits.statement, 'given');
  assert.ok(!findings.some((f) => f.code === 'import-part-gap' && f.part === 'limits'), 'limits is no gap');
  assert.match(codes(findings, 'import-paging-read')[0], /page by page \('page', size 'per_page', default 20, at most 50/);
  // The bare array is the page body stated: no difference to report. The filter and the paging parameters are all carried.
  assert.deepEqual(codes(findings, 'import-list-page'), []);
  assert.deepEqual(codes(findings, 'import-parameters'), []);
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'order.list')!.query?.filters.map((f) => f.field), ['note']);
});

test('import: cursors (Stripe\'s starting_after, page tokens) are the cursor style; a backward cursor (ending_before) is reported, not carried', async () => {
  const stripe = await run(pagedShop([q('starting_after'), q('ending_before'), q('limit', SIZE)]));
  assert.deepEqual([stripe.spec.limits.pagination?.style, stripe.spec.limits.pagination?.positionParam, stripe.spec.limits.pagination?.sizeParam], ['cursor', 'starting_after', 'limit']);
  assert.match(codes(stripe.findings, 'import-paging-unsayable').join('\n'), /GET \/orders takes 'ending_before', a cursor that pages backwards; the format pages forward from a position only/);
  assert.match(codes(stripe.findings, 'import-parameters').join('\n'), /query ending_before;/);
  const token = await run(pagedShop([q('pageToken'), q('pageSize', SIZE)]));
  assert.deepEqual([token.spec.limits.pagination?.style, token.spec.limits.pagination?.positionParam, token.spec.limits.pagination?.sizeParam], ['cursor', 'pageToken', 'pageSize']);
});

test('import: a list taking two size parameters pages by the one the other lists take (Kratos: per_page with page, page_size with page_token); a list whose sizes differ is reported at its size', async () => {
  const customers = `  /customers:
    get:
      parameters: [${q('page_token')}, ${q('page_size', '{ type: integer, minimum: 1, default: 20, maximum: 10 }')}]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Customer' } } } } } }
`;
  const { spec, findings } = await run(pagedShop([q('per_page', SIZE), q('page', '{ type: integer }'), q('page_size', SIZE), q('page_token')], customers));
  assert.deepEqual([spec.limits.pagination?.style, spec.limits.pagination?.positionParam, spec.limits.pagination?.sizeParam, spec.limits.pagination?.maxSize], ['cursor', 'page_token', 'page_size', 50]);
  const unsayable = codes(findings, 'import-paging-unsayable').join('\n');
  assert.doesNotMatch(unsayable, /GET \/orders names its parameters/, 'orders takes page_size too: it pages by it');
  assert.match(unsayable, /GET \/customers gives 'page_size' the maximum 10, where the pagination read from GET \/orders has the default 20 and the maximum 50/);
  assert.match(codes(findings, 'import-parameters').join('\n'), /GET \/orders takes parameters svcspec has no place for: query per_page, query page;/);
  // Alone, such a list pages by the size that goes with its cursor, not by the first in a fixed order.
  const alone = await run(pagedShop([q('per_page', SIZE), q('page', '{ type: integer }'), q('page_size', SIZE), q('page_token')]));
  assert.deepEqual([alone.spec.limits.pagination?.positionParam, alone.spec.limits.pagination?.sizeParam], ['page_token', 'page_size']);
});

test('import: offset and limit are the offset style; one style for the service, the lists that page otherwise reported', async () => {
  const customers = `  /customers:
    get:
      parameters: [${q('page', '{ type: integer }')}, ${q('per_page', SIZE)}]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Customer' } } } } } }
`;
  const { spec, findings } = await run(pagedShop([q('offset', '{ type: integer, minimum: 0 }'), q('limit', SIZE)], customers));
  assert.deepEqual([spec.limits.pagination?.style, spec.limits.pagination?.positionParam, spec.limits.pagination?.sizeParam], ['offset', 'offset', 'limit']);
  assert.match(codes(findings, 'import-paging-unsayable').join('\n'), /GET \/customers pages by page \('page'\) where the other lists page by offset; the format states one pagination for the whole service/);
});

test('import: a size parameter whose schema gives no default writes the pagination without it: the part partial, the reference pages by its safety bound, and the tester holds no implementation to it', async (t) => {
  const { spec, findings } = await run(pagedShop([q('cursor'), q('limit', '{ type: integer, maximum: 100 }')]));
  const p = spec.limits.pagination;
  assert.deepEqual(p && [p.style, p.positionParam, p.sizeParam, p.defaultSize, p.maxSize, p.overMax], ['cursor', 'cursor', 'limit', undefined, 100, 'reject']);
  assert.match(codes(findings, 'import-paging-sizes')[0], /GET \/orders pages by cursor \('cursor'\), but the schema of 'limit' gives no default; the pagination is written without a default page size/);
  const checked = checkSpec(spec, []);
  assert.equal(checked.parts.find((x) => x.name === 'limits')?.status, 'partial');
  assert.ok(checked.diagnostics.some((d) => d.code === 'part-partial' && /the default page size/.test(d.message)), checked.diagnostics.map((d) => d.message).join('\n'));
  assert.deepEqual(checked.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 17, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const by = (id: string) => report.results.find((r) => r.id === id);
  assert.equal(by('order.walk')?.outcome, 'pass');
  assert.deepEqual([by('order.default-size')?.outcome, by('order.default-size')?.skipKind], ['skip', 'not-applicable']);
  assert.equal(by('order.over-max')?.outcome, 'pass');
});

test('import: a paged list imported from plain OpenAPI is served as stated and passes the tester', async (t) => {
  const { spec } = await run(pagedShop([q('page', '{ type: integer, minimum: 1 }'), q('per_page', '{ type: integer, minimum: 1, default: 2, maximum: 3 }'), q('note')]));
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 17, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const passed = report.results.filter((r) => r.outcome === 'pass').map((r) => r.id);
  // The pages as stated: walked by their page numbers, the default size and the largest one held.
  for (const id of ['order.walk', 'order.default-size', 'order.over-max']) assert.ok(passed.includes(id), `${id} passed: ${passed.join(', ')}`);
});

/** A list answering an envelope `envelope` (YAML properties) and taking `params`. */
function envelopeShop(envelope: string, params: readonly string[]): string {
  return `openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /customers:
    get:
      parameters: [${params.join(', ')}]
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/CustomerList' } } } } }
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Customer' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Customer' } } } } }
  /customers/{customerId}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Customer' } } } } } }
components:
  schemas:
    Customer: { type: object, required: [name], properties: { id: { type: string, readOnly: true }, name: { type: string, maxLength: 40 } } }
    CustomerList: { type: object, properties: { ${envelope} } }
`;
}

test('import: under a pagination stated as an envelope, a list that answers a bare array is still reported as differing', async () => {
  const doc = envelopeShop("items: { type: array, items: { $ref: '#/components/schemas/Customer' } }, next_page_token: { type: string }", [q('page_token'), q('page_size', SIZE)]).replace(
    'components:',
    `  /tags:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Tag' } } } } } } }
components:`,
  ).replace('    CustomerList:', '    Tag: { type: object, properties: { id: { type: string, readOnly: true }, label: { type: string } } }\n    CustomerList:');
  const { spec, findings } = await run(doc);
  assert.equal(spec.limits.pagination?.body.kind, 'object');
  assert.ok(spec.endpoints.some((e) => e.id === 'tag.list'), spec.endpoints.map((e) => e.id).join(', '));
  assert.equal(codes(findings, 'import-list-page').length, 1, findings.map((f) => f.code).join(', '));
  assert.match(codes(findings, 'import-list-page')[0], /tag/);
});

test('import: a list envelope is a page of its records: the page body names its members; the envelope schema is no resource', async () => {
  const { spec, findings } = await run(envelopeShop("items: { type: array, items: { $ref: '#/components/schemas/Customer' } }, next_page_token: { type: string }, total_size: { type: integer }", [q('page_token'), q('page_size', SIZE)]));
  assert.deepEqual(spec.endpoints.map((e) => e.id), ['customer.list', 'customer.create', 'customer.read']);
  assert.deepEqual(spec.resources.map((r) => r.name), ['customer']);
  assert.match(codes(findings, 'import-schema-not-resource')[0], /'CustomerList' is a page of Customer, its records under 'items'/);
  const p = spec.limits.pagination!;
  assert.deepEqual([p.style, p.positionParam, p.sizeParam, p.body], ['cursor', 'page_token', 'page_size', { kind: 'object', items: 'items', next: 'next_page_token', total: 'total_size' }]);
  // Stripe's envelope: `has_more` is a flag, not a position; the page is walked by its Link.
  const stripe = await run(envelopeShop("object: { type: string }, data: { type: array, items: { $ref: '#/components/schemas/Customer' } }, has_more: { type: boolean }", [q('starting_after'), q('limit', SIZE)]));
  assert.deepEqual(stripe.spec.limits.pagination?.body, { kind: 'object', items: 'data' });
  assert.match(codes(stripe.findings, 'import-paging-unsayable').join('\n'), /GET \/customers answers its page with 'object', 'has_more' beside the records/);
  // Without the sizes, the envelope is stated all the same; the sizes stay for the user to state.
  const silent = await run(envelopeShop("data: { type: array, items: { $ref: '#/components/schemas/Customer' } }", [q('starting_after'), q('limit')]));
  assert.deepEqual(silent.spec.limits.pagination?.body, { kind: 'object', items: 'data' });
  assert.deepEqual([silent.spec.limits.pagination?.defaultSize, silent.spec.limits.pagination?.maxSize], [undefined, undefined]);
  assert.match(codes(silent.findings, 'import-paging-sizes')[0], /the pagination is written without a default page size and a largest page size/);
});

test('import: a list answering a page-token envelope is served in that envelope and passes the tester', async (t) => {
  const { spec } = await run(envelopeShop("items: { type: array, items: { $ref: '#/components/schemas/Customer' } }, next_page_token: { type: string, nullable: true }", [q('page_token'), q('page_size', '{ type: integer, minimum: 1, default: 2, maximum: 3 }')]));
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 23, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  const passed = report.results.filter((r) => r.outcome === 'pass').map((r) => r.id);
  for (const id of ['customer.walk', 'customer.default-size', 'customer.over-max']) assert.ok(passed.includes(id), `${id} passed: ${passed.join(', ')}`);
});

const NESTED = `openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /customers:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Customer' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Customer' } } } } }
  /customers/{customerId}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Customer' } } } } } }
  /customers/{customer_id}/orders:
    get:
      operationId: customerOrders
      parameters: [{ name: customer_id, in: path, required: true, schema: { type: string } }]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Order' } } } } } }
    post:
      operationId: orderForCustomer
      parameters: [{ name: customer_id, in: path, required: true, schema: { type: string } }]
      requestBody: { content: { application/json: { schema: { type: object, properties: { note: { type: string } } } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
  /customers/{customer_id}/orders/{order_id}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } } }
    patch:
      requestBody: { content: { application/json: { schema: { type: object, properties: { note: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
    delete: { operationId: cancelCustomerOrder, responses: { '204': { description: Gone } } }
  /orders:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
  /orders/{orderId}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } } }
components:
  schemas:
    Customer: { type: object, required: [name], properties: { id: { type: string, readOnly: true }, name: { type: string, maxLength: 40 } } }
    Order: { type: object, properties: { id: { type: string, readOnly: true }, customer_id: { type: string }, note: { type: string, maxLength: 40 } } }
`;

test('import: a nested path whose child holds the parent\'s id is a nested collection (list, create, read, update, delete); the member becomes a ref to the parent', async () => {
  const { spec, findings } = await run(NESTED);
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.operation} ${e.method} ${e.path}`), [
    'customer.create create POST /customers', 'customer.read read GET /customers/{id}',
    'order.customerOrders list GET /customers/{customer_id}/orders', 'order.orderForCustomer create POST /customers/{customer_id}/orders',
    'order.getCustomersOrders read GET /customers/{customer_id}/orders/{id}', 'order.cancelCustomerOrder delete DELETE /customers/{customer_id}/orders/{id}',
    'order.patchCustomersOrders update PATCH /customers/{customer_id}/orders/{id}',
    'order.create create POST /orders', 'order.read read GET /orders/{id}',
  ]);
  const item = spec.endpoints.find((e) => e.id === 'order.patchCustomersOrders')!;
  assert.deepEqual(item.params.map((p) => [p.name, p.binding.kind]), [['customer_id', 'parent'], ['id', 'id']]);
  const nested = spec.endpoints.find((e) => e.id === 'order.customerOrders')!;
  assert.deepEqual(nested.params.map((p) => [p.name, p.binding, p.declared]), [['customer_id', { kind: 'parent', field: 'customer_id', resource: 'customer' }, true]]);
  assert.deepEqual([fieldOf(spec, 'order', 'customer_id')?.type, fieldOf(spec, 'order', 'customer_id')?.resource], ['ref', 'customer']);
  assert.match(codes(findings, 'import-nested-path')[0], /^GET \/customers\/\{customer_id\}\/orders reaches the order records of one customer: .* 'customer_id' of 'order' as a ref to 'customer'/);
  // Without the member, the path stays an action of the parent record (its behaviour prose).
  const { spec: bare } = await run(NESTED.replace('customer_id: { type: string }, ', ''));
  assert.deepEqual(bare.endpoints.filter((e) => e.path.includes('/orders') && e.path.startsWith('/customers')).map((e) => e.operation), ['action', 'action', 'action', 'action', 'action']);
});

test('import: a nested collection imported from plain OpenAPI is served through its parent and passes the tester', async (t) => {
  const { spec } = await run(NESTED);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 29, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  // The update and delete go through the order's customer (their only endpoints), the create and reads as well.
  const passed = report.results.filter((r) => r.outcome === 'pass').map((r) => r.id);
  for (const id of ['order.create', 'order.update', 'order.delete']) assert.ok(passed.includes(id), `${id} passed: ${passed.join(', ')}`);
});

test("import: a list's query parameters that name scalar fields are its declared filters (equality); the id and the others are reported", async () => {
  const { spec, findings } = await run(pagedShop([q('note'), q('id', '{ type: integer }'), q('q'), "{ name: X-Trace, in: header, schema: { type: string } }"]));
  const list = spec.endpoints.find((e) => e.id === 'order.list')!;
  assert.deepEqual(list.query?.filters.map((f) => [f.field, f.ops]), [['note', ['eq']]]);
  assert.deepEqual(list.query?.sort, []);
  // OpenAPI says nothing of parameters an operation does not list: refused or ignored, the service's choice.
  assert.equal(list.query?.undeclared, 'either');
  assert.deepEqual(codes(findings, 'import-parameters').map((m) => /no place for: (.*); they/.exec(m)![1]), ['query id, query q, header X-Trace']);
});

test('import: a schema used only as the request body of writes answered with one holding all its properties (NewPet for Pet) is not a resource; the create takes its fields', async () => {
  const { spec, findings } = await run(`openapi: 3.1.0
info: { title: Pets, version: '1' }
paths:
  /pets:
    post:
      requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/NewPet' } } } }
      responses: { '201': { description: made, content: { application/json: { schema: { $ref: '#/components/schemas/Pet' } } } } }
    get:
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Pet' } } } } } }
  /owners:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/OwnerInput' } } } }
      responses: { '201': { description: made, content: { application/json: { schema: { $ref: '#/components/schemas/Owner' } } } } }
  /notes:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
      responses: { '201': { description: made, content: { application/json: { schema: { $ref: '#/components/schemas/Receipt' } } } } }
components:
  schemas:
    NewPet: { type: object, required: [name], properties: { name: { type: string }, tag: { type: string } } }
    Pet: { allOf: [{ $ref: '#/components/schemas/NewPet' }, { type: object, required: [id], properties: { id: { type: string, readOnly: true } } }] }
    OwnerInput: { type: object, properties: { name: { type: string } } }
    Owner: { type: object, properties: { id: { type: integer, readOnly: true }, name: { type: string } } }
    Note: { type: object, properties: { text: { type: string } } }
    Receipt: { type: object, properties: { id: { type: string }, at: { type: string } } }
`);
  // NewPet (by allOf) and OwnerInput (by its properties) are the writable parts of Pet and Owner;
  // Note is answered with a Receipt that does not hold its 'text': a resource of its own.
  assert.deepEqual(spec.resources.map((r) => r.name).sort(), ['note', 'owner', 'pet', 'receipt']);
  const shapes = codes(findings, 'import-schema-not-resource');
  assert.ok(shapes.some((m) => /'NewPet' is the request body of writes answered with Pet/.test(m)), shapes.join('\n'));
  assert.ok(shapes.some((m) => /'OwnerInput' is the request body of writes answered with Owner/.test(m)), shapes.join('\n'));
  const create = spec.endpoints.find((e) => e.id === 'pet.create');
  assert.deepEqual(create?.request, { kind: 'fields', fields: ['name', 'tag'] });
});

test('import: what real documents carry is read as meant: a $ref inside an extension is not followed, `scheme: Bearer` is bearer, a JWT scheme says its keys are to be given, "an integer"', async () => {
  const { spec, findings } = await run(`openapi: 3.1.0
info: { title: Games, version: '1' }
x-topics:
  - title: Getting started
    content: { $ref: ./docs/getting-started.md }
paths:
  /games:
    get:
      security: [{ bearerAuth: [] }]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Game' } } } } } }
components:
  securitySchemes:
    bearerAuth: { type: http, scheme: Bearer, bearerFormat: JWT }
  schemas:
    Game: { type: object, properties: { id: { type: integer, readOnly: true }, name: { type: string } } }
    Coordinate: { type: integer, minimum: 1, maximum: 3 }
`);
  assert.deepEqual(spec.authentication.schemes.map((s) => [s.name, s.type, s.type === 'bearer' ? s.tokens : undefined]), [['bearerAuth', 'bearer', 'jwt']]);
  assert.match(codes(findings, 'import-auth-jwt-keys').join('\n'), /'bearerAuth' takes JWTs.*cannot be served until its `jwt` says where they are/);
  assert.match(codes(findings, 'import-schema-not-resource').join('\n'), /'Coordinate' is an integer/);
  assert.deepEqual(findings.filter((f) => f.severity === 'error').map((f) => f.message), []);
});

test('import: a record answered with members of the answer\'s own (allOf: [Booking, {links}], hypermedia beside the record) is the record; what it adds is said not carried', async () => {
  const { spec, findings } = await run(`openapi: 3.1.0
info: { title: Trains, version: '1' }
paths:
  /bookings:
    get:
      responses:
        '200': { description: OK, content: { application/json: { schema: { type: array, items: { allOf: [{ $ref: '#/components/schemas/Booking' }, { properties: { links: { type: object } } }] } } } } }
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Booking' } } } }
      responses:
        '201': { description: Made, content: { application/json: { schema: { allOf: [{ $ref: '#/components/schemas/Booking' }, { properties: { links: { type: object, properties: { self: { type: string, format: uri } } } } }] } } } }
  /bookings/{bookingId}:
    get:
      parameters: [{ name: bookingId, in: path, required: true, schema: { type: string, format: uuid } }]
      responses:
        '200': { description: OK, content: { application/json: { schema: { allOf: [{ $ref: '#/components/schemas/Booking' }, { type: object, properties: { links: { type: object } } }] } } } }
components:
  schemas:
    Booking: { type: object, properties: { id: { type: string, format: uuid, readOnly: true }, seat: { type: string } } }
`);
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.responses.find((r) => r.status < 300)?.body}`), ['booking.list page', 'booking.create resource', 'booking.read resource']);
  assert.match(codes(findings, 'import-not-carried').join('\n'), /members an answer adds to its record \(allOf\)' \(3 in all\)/);
});

test('import: a nested path whose parent parameter is named id (/users/{id}/posts/{postId}) names it after its resource, and the child\'s own id never holds the parent', async () => {
  const { spec } = await run(`openapi: 3.0.3
info: { title: Blog, version: '1' }
paths:
  /users/{id}:
    get: { parameters: [{ name: id, in: path, required: true, schema: { type: integer } }], responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } } } }
  /users/{id}/posts:
    get: { parameters: [{ name: id, in: path, required: true, schema: { type: integer } }], responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Post' } } } } } } }
  /users/{id}/posts/{postId}:
    get: { parameters: [{ name: id, in: path, required: true, schema: { type: integer } }, { name: postId, in: path, required: true, schema: { type: integer } }], responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Post' } } } } } }
  /users/{uid}/addresses/{id}:
    delete: { parameters: [{ name: uid, in: path, required: true, schema: { type: string } }, { name: id, in: path, required: true, schema: { type: string } }], responses: { '204': { description: Gone } } }
  /posts/{postId}:
    get: { parameters: [{ name: postId, in: path, required: true, schema: { type: integer } }], responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Post' } } } } } }
components:
  schemas:
    User: { type: object, properties: { id: { type: integer, readOnly: true }, name: { type: string } } }
    Post: { type: object, properties: { id: { type: integer, readOnly: true }, userId: { type: integer }, title: { type: string } } }
`);
  const posts = spec.endpoints.filter((e) => e.resource === 'post').map((e) => `${e.operation} ${e.path} ${e.params.map((p) => `${p.name}:${p.binding.kind}${p.binding.kind === 'parent' ? `(${p.binding.field})` : ''}`).join(',')}`);
  assert.deepEqual(posts, ['list /users/{userId}/posts userId:parent(userId)', 'read /users/{userId}/posts/{id} userId:parent(userId),id:id', 'read /posts/{id} id:id']);
  assert.equal(spec.endpoints.find((e) => e.path.includes('addresses'))?.path, '/users/{id}/addresses/{addressId}', 'addresses -> address');
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`), []);
});

test('import: the parameter named after its segment takes the singular of English plurals', async () => {
  const { endpointPath } = await import('../../src/import/openapi/paths.ts');
  const named = (segment: string) => endpointPath(`/articles/{slug}/${segment}/{id}`, '/articles').path.split('/').at(-1);
  assert.deepEqual(['comments', 'courses', 'purchases', 'responses', 'releases', 'statuses', 'addresses', 'boxes', 'matches', 'categories'].map(named),
    ['{commentId}', '{courseId}', '{purchaseId}', '{responseId}', '{releaseId}', '{statusId}', '{addressId}', '{boxId}', '{matchId}', '{categoryId}']);
});

test('import: RFC 9457 problem details without a code member are the error shape, without a code (errors judged by status and shape); a body with no message at all stays a gap', async () => {
  const { spec, findings } = await run(`openapi: 3.1.0
info: { title: Notes, version: '1' }
paths:
  /notes/{id}:
    get:
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses:
        '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
        '404': { description: Missing, content: { application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } } } }
components:
  schemas:
    Note: { type: object, properties: { id: { type: string }, text: { type: string } } }
    Problem: { type: object, properties: { type: { type: string }, title: { type: string }, status: { type: integer }, detail: { type: string } } }
`);
  assert.equal(spec.parts.errors.statement, 'given');
  assert.deepEqual(spec.errors.shape && { kind: spec.errors.shape.kind, mediaType: spec.errors.shape.mediaType, members: spec.errors.shape.members }, { kind: 'custom', mediaType: 'application/problem+json', members: { title: 'title', status: 'status', detail: 'detail', type: 'type' } });
  assert.equal(codes(findings, 'import-error-no-code').length, 1);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`), []);
  const none = await run(`openapi: 3.1.0
info: { title: Notes, version: '1' }
paths:
  /notes:
    get:
      responses:
        '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Note' } } } } }
        '422': { description: Bad, content: { application/json: { schema: { type: object, properties: { errors: { type: object } } } } } }
components:
  schemas:
    Note: { type: object, properties: { id: { type: string } } }
`);
  assert.equal(none.spec.parts.errors.statement, 'gap');
  assert.equal(codes(none.findings, 'import-error-shape').length, 1);
});

test('import: an error held one level down ({error: {code, message}}, Ory) is said so, part 7 a gap; the schemas it uses are no resources, a default beside a 303 included', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Ory-like, version: '1' }
paths:
  /identities:
    get:
      responses:
        '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Identity' } } } } }
        '400': { description: Bad, content: { application/json: { schema: { $ref: '#/components/schemas/errorGeneric' } } } }
  /change-password:
    get:
      responses:
        '303': { description: Moved }
        default: { description: Failed, content: { application/json: { schema: { $ref: '#/components/schemas/errorGeneric' } } } }
components:
  schemas:
    Identity: { type: object, properties: { id: { type: string, readOnly: true }, name: { type: string } } }
    errorGeneric:
      type: object
      required: [error]
      properties: { error: { $ref: '#/components/schemas/genericError' } }
    genericError:
      type: object
      required: [message]
      properties: { code: { type: integer }, message: { type: string }, reason: { type: string } }
`);
  assert.equal(spec.parts.errors.statement, 'gap');
  assert.match(codes(findings, 'import-error-nested')[0] ?? '', /The error bodies \(errorGeneric\) hold the error one level down, in 'error' \(code in 'error\.code', title in 'error\.message'\)/);
  assert.deepEqual(codes(findings, 'import-error-shape'), [], 'not "no member for the title": the title is there, one level down');
  const names = spec.resources.map((r) => r.name);
  assert.ok(names.includes('identity'));
  assert.ok(!names.includes('errorGeneric') && !names.includes('genericError'), names.join(', '));
});

test('import: a nested path whose child holds no member for the parent\'s id (a session embedding its identity whole) stays an action, and the import says why', async () => {
  const { findings } = await run(`openapi: 3.0.3
info: { title: Identities, version: '1' }
paths:
  /identities:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Identity' } } } } } } }
  /identities/{id}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Identity' } } } } } }
  /identities/{id}/sessions:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Session' } } } } } } }
  /sessions/{id}:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Session' } } } } } }
components:
  schemas:
    Identity: { type: object, properties: { id: { type: string, readOnly: true }, name: { type: string } } }
    Session: { type: object, properties: { id: { type: string, readOnly: true }, identity: { $ref: '#/components/schemas/Identity' } } }
`);
  assert.match(codes(findings, 'import-nested-unbound')[0] ?? '', /GET \/identities\/\{id\}\/sessions reads as the session records of one identity, but 'session' has no member holding an identity's id/);
});

test('import: an OAuth 2.0 error body ({error, error_description}, RFC 6749 §5.2) is the error shape, without a title (Hydra); the reference answers in it', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: OAuth-like, version: '1' }
paths:
  /clients:
    get:
      responses:
        '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Client' } } } } }
        default: { description: Failed, content: { application/json: { schema: { $ref: '#/components/schemas/errorOAuth2' } } } }
components:
  schemas:
    Client: { type: object, properties: { client_id: { type: string, readOnly: true }, client_name: { type: string } } }
    errorOAuth2: { type: object, properties: { error: { type: string }, error_description: { type: string }, status_code: { type: integer } } }
`);
  assert.equal(spec.parts.errors.statement, 'given');
  assert.deepEqual(spec.errors.shape && { mediaType: spec.errors.shape.mediaType, members: spec.errors.shape.members }, { mediaType: 'application/json', members: { code: 'error', status: 'status_code', detail: 'error_description' } });
  assert.deepEqual(codes(findings, 'import-error-shape'), []);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
});

test('import: a custom method (POST /attachments:batchDelete, AIP-136) is an action, never the create of its request body\'s schema (Memos)', async () => {
  const { spec, findings } = await run(`openapi: 3.0.3
info: { title: Memos-like, version: '1' }
paths:
  /attachments:
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Attachment' } } } } } } }
  /attachments:batchDelete:
    post:
      operationId: BatchDeleteAttachments
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/BatchDeleteAttachmentsRequest' } } } }
      responses: { '200': { description: OK } }
components:
  schemas:
    Attachment: { type: object, properties: { name: { type: string }, filename: { type: string } } }
    BatchDeleteAttachmentsRequest: { type: object, required: [names], properties: { names: { type: array, items: { type: string } } } }
`);
  const batch = spec.endpoints.find((e) => e.path === '/attachments:batchDelete');
  assert.equal(batch?.operation, 'action');
  assert.ok(!spec.endpoints.some((e) => e.operation === 'create'), 'no create of the request schema');
  assert.ok(codes(findings, 'import-endpoint-named').some((m) => /POST \/attachments:batchDelete/.test(m)));
});

test('import: a schema without additionalProperties: false takes members it does not name (unknownFields: ignore); one with it refuses them; readOnly members sent are refused or ignored, as the service chooses (JSON Schema\'s readOnly)', async () => {
  const { spec } = await run(`openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /open:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Open' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Open' } } } } }
  /closed:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Closed' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Closed' } } } } }
components:
  schemas:
    Open: { type: object, properties: { id: { type: string, readOnly: true }, name: { type: string } } }
    Closed: { type: object, additionalProperties: false, properties: { id: { type: string, readOnly: true }, name: { type: string } } }
`);
  const by = (name: string) => spec.resources.find((r) => r.name === name)!;
  assert.deepEqual([by('open').unknownFields, by('open').readOnlyFields], ['ignore', 'either']);
  assert.deepEqual([by('closed').unknownFields, by('closed').readOnlyFields], ['refuse', 'either']);
});

test("import keeps each operation's operationId, and export gives it back (code generators name methods after it); a name the document repeats stays with its first operation", async () => {
  const { spec } = await run(`openapi: 3.0.3
info: { title: Shop, version: '1' }
paths:
  /orders:
    get: { operationId: listOrders, responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Order' } } } } } } }
    post:
      operationId: createOrder
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
  /orders/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
    get: { operationId: getOrder, responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } } }
    delete: { operationId: getOrder, responses: { '204': { description: Gone } } }
components:
  schemas:
    Order: { type: object, properties: { id: { type: integer, readOnly: true }, note: { type: string } } }
`);
  const named = Object.fromEntries(spec.endpoints.map((e) => [e.id, e.operationId]));
  assert.deepEqual(named, { 'order.list': 'listOrders', 'order.create': 'createOrder', 'order.read': 'getOrder', 'order.delete': undefined });
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
  const doc = toOpenApi(spec).document as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
  assert.deepEqual([doc.paths['/orders']!.get!.operationId, doc.paths['/orders']!.post!.operationId, doc.paths['/orders/{id}']!.get!.operationId, doc.paths['/orders/{id}']!.delete!.operationId], ['listOrders', 'createOrder', 'getOrder', 'order.delete']);
});
