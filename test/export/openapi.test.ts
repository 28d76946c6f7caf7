import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveVersions, toOpenApi } from '../../src/export/index.ts';
import type { Spec } from '../../src/spec/model.ts';
import { mustLoad } from '../support/spec.ts';
import { EXAMPLES, GAP_CASES, example, openApiErrors, schemaValidator } from './support.ts';
import { serve } from '../serve/support/open-app.ts';

type Json = Record<string, any>;

/** The export writes responses and headers alike across operations once, in components: followed here, so a test reads an operation whole. */
const inline = (doc: Json, v: any): any => {
  if (Array.isArray(v)) return v.map((x) => inline(doc, x));
  if (v === null || typeof v !== 'object') return v;
  const shared = typeof v.$ref === 'string' ? /^#\/components\/(responses|headers)\/(.+)$/.exec(v.$ref) : null;
  if (shared) return inline(doc, doc.components[shared[1]!][shared[2]!]);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, inline(doc, x)]));
};
const op = (doc: Json, path: string, method: string): Json => {
  const o = doc.paths[path]?.[method];
  assert.ok(o, `no ${method} ${path}`);
  return inline(doc, o);
};
/** A response's header, its component followed where the export shares it (`$ref` into components.headers). */
const hdr = (doc: Json, response: Json, name: string): Json => {
  const h = response.headers?.[name];
  return h?.$ref ? doc.components.headers[h.$ref.replace('#/components/headers/', '')] : h;
};
const param = (o: Json, name: string): Json | undefined => o.parameters?.find((p: Json) => p.name === name);

/** Every operation's path parameters are declared, operation ids are unique, every schema compiles as 2020-12. */
function structural(doc: Json): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, o] of Object.entries(item as Json)) {
      if (ids.has(o.operationId)) problems.push(`duplicate operationId ${o.operationId}`);
      ids.add(o.operationId);
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        if (!o.parameters?.some((p: Json) => p.in === 'path' && p.name === name)) problems.push(`${method} ${path}: path parameter ${name} undeclared`);
      }
    }
  }
  const check = schemaValidator(doc);
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    try {
      check({ $ref: `#/components/schemas/${name}` }, null);
    } catch (error) {
      problems.push(`schema ${name}: ${(error as Error).message}`);
    }
  }
  return problems;
}

for (const name of EXAMPLES) {
  test(`openapi: ${name} exports a valid OpenAPI 3.1 document for every version served`, async () => {
    const spec = await example(name);
    const versions = liveVersions(spec).map((v) => v.name);
    for (const version of versions.length ? versions : [undefined]) {
      const { document } = toOpenApi(spec, version ? { version } : {});
      assert.equal(document.openapi, '3.1.0');
      assert.deepEqual(await openApiErrors(document), [], `${name} version ${version}`);
      assert.deepEqual(structural(document), [], `${name} version ${version}`);
      assert.equal(Object.keys(document.paths as object).length > 0, spec.endpoints.length > 0);
    }
  });
}

for (const [title, make] of Object.entries(GAP_CASES)) {
  test(`openapi: ${title}: a valid document`, async () => {
    const spec = make();
    const { document, findings } = toOpenApi(spec);
    assert.deepEqual(await openApiErrors(document), []);
    assert.deepEqual(structural(document), []);
    assert.equal((document.info as Json).version, 'unversioned');
    assert.equal(findings.some((f) => f.code === 'export-part-gap'), spec.parts.endpoints.statement !== 'given');
  });
}

test('openapi: a field becomes JSON Schema with its constraints, per direction', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const s = (doc as Json).components.schemas;
  assert.deepEqual(s.Book.properties.title, { type: 'string', minLength: 1, maxLength: 300, description: 'The title as printed on the title page.' });
  assert.deepEqual(s.Book.properties.coverUrl.type, ['string', 'null']);
  assert.equal(s.Book.properties.coverUrl.format, 'uri');
  assert.equal(s.Book.properties.available.readOnly, true);
  assert.equal(s.Book.properties.language.default, 'en');
  assert.equal(s.Book.properties.replacementCost.multipleOf, 0.01);
  // Every record has its id and state; defaults are always there; required writable fields too.
  assert.deepEqual(s.Member.required, ['id', 'name', 'email', 'maxLoans', 'status']);
  // writeOnly: accepted on create, never shown.
  assert.equal(s.Member.properties.pin, undefined);
  assert.equal(s.MemberCreate.properties.pin.writeOnly, true);
  assert.ok(s.MemberCreate.required.includes('pin'));
  // readOnly fields and the state are not part of a request; unknown members are refused.
  assert.equal(s.BookCreate.properties.available, undefined);
  assert.equal(s.MemberCreate.properties.status, undefined);
  assert.equal(s.BookCreate.additionalProperties, false);
  // limits.fields caps request strings without a maxLength of their own (4000), not responses.
  assert.equal(s.BookCreate.properties.publishedOn.maxLength, 4000);
  assert.equal(s.Book.properties.publishedOn.maxLength, undefined);
  // A merge patch: nothing required, null removes an optional member, not a required one.
  assert.equal(s.BookPatch.required, undefined);
  assert.deepEqual(s.BookPatch.properties.pages.type, ['integer', 'null']);
  assert.equal(s.BookPatch.properties.title.type, 'string');
  // A ref is the referenced id: a UUID string for book, an integer for member (sequence).
  assert.deepEqual([s.Loan.properties.book.type, s.Loan.properties.book.format, s.Loan.properties.book['x-svcspec-ref']], ['string', 'uuid', 'book']);
  assert.equal(s.Loan.properties.member.type, 'integer');
  // Nested objects keep their required members and refuse others in requests.
  assert.deepEqual(s.MemberCreate.properties.address.required, ['street', 'city', 'postalCode']);
  assert.equal(s.MemberCreate.properties.address.additionalProperties, false);
});

test('openapi: request bodies per endpoint: create, merge patch, transitions with what they require', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const patch = op(doc, '/books/{id}', 'patch').requestBody;
  assert.deepEqual(Object.keys(patch.content), ['application/merge-patch+json', 'application/json']);
  const s = (doc as Json).components.schemas;
  // loan.create names its fields; approve requires dueDate; verify requires nothing (the body may be absent).
  assert.deepEqual(Object.keys(s.LoanCreateRequest.properties), ['book', 'member', 'dueDate', 'notes']);
  assert.deepEqual(s.LoanCreateRequest.required, ['book', 'member']);
  assert.deepEqual(s.LoanApproveRequest.required, ['dueDate']);
  assert.equal(op(doc, '/members/{id}/verify', 'post').requestBody.required, false);
  assert.equal(op(doc, '/loans/{id}/approve', 'post').requestBody.required, true);
});

test('openapi: responses: the resource with ETag and Location, pages, 204, 304', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const created = op(doc, '/books', 'post').responses['201'];
  assert.deepEqual(created.content['application/json'].schema, { $ref: '#/components/schemas/Book' });
  assert.ok(created.headers.ETag && created.headers.Location);
  const page = (doc as Json).components.schemas.BookPage;
  assert.deepEqual(page.required, ['items', 'next']);
  assert.deepEqual(page.properties.next.type, ['string', 'null']);
  assert.ok(op(doc, '/books', 'get').responses['200'].headers.Link);
  const deleted = op(doc, '/books/{id}', 'delete').responses['204'];
  assert.equal(deleted.content, undefined);
  assert.ok(op(doc, '/books/{id}', 'get').responses['304']);
  // Offset pages (helpdesk) carry their offset.
  const { document: help } = toOpenApi(await example('helpdesk.yaml'));
  assert.deepEqual((help as Json).components.schemas.TicketPage.required, ['items', 'offset', 'next']);
});

test('openapi: every error an endpoint can answer, declared and runtime, in the declared shape', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const approve = op(doc, '/loans/{id}/approve', 'post').responses;
  assert.deepEqual(Object.keys(approve).sort(), ['200', '400', '401', '403', '404', '409', '412', '413', '415', '422', '429', '500', '503', '504'].sort());
  // 503: `unavailable` (shutting down, the database file lost, keys unreachable); 504: the declared time-out status.
  assert.equal(approve['503'].content['application/problem+json'].schema.properties.code.const, 'unavailable');
  assert.deepEqual(approve['409'].content['application/problem+json'].schema.properties.code.enum.sort(), ['book-unavailable', 'invalid-transition']);
  assert.ok(approve['409'].content['application/problem+json'].schema.properties.allowedTransitions);
  assert.equal(hdr(doc, approve['401'], 'WWW-Authenticate').required, true);
  assert.equal(hdr(doc, approve['429'], 'Retry-After').required, true);
  // A public list: credentials are still checked (401), no scope is needed (no 403); no body (no 413).
  const list = op(doc, '/books', 'get').responses;
  assert.ok(list['401'] && !list['403'] && !list['413'] && list['422']);
  const error = (doc as Json).components.schemas.Error;
  assert.deepEqual(error.required, ['type', 'title', 'status', 'instance', 'code']);
  // A custom shape (orders): its media type and members.
  const { document: orders } = toOpenApi(await example('orders.yaml'));
  const custom = (orders as Json).components.schemas.Error;
  assert.deepEqual(Object.keys(custom.properties).sort(), ['detail', 'error', 'message', 'status', 'violations']);
  assert.ok(op(orders, '/orders', 'post').responses['422'].content['application/json']);
});

test('openapi: security schemes and each operation\'s security', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const schemes = (doc as Json).components.securitySchemes;
  assert.deepEqual({ ...schemes.staffKey, description: undefined }, { type: 'apiKey', in: 'header', name: 'X-API-Key', description: undefined });
  assert.equal(schemes.memberToken.bearerFormat, 'JWT');
  assert.deepEqual(op(doc, '/books', 'get').security, []);
  assert.deepEqual(op(doc, '/books', 'post').security, [{ staffKey: ['catalog:write'] }, { memberToken: ['catalog:write'] }]);
  assert.deepEqual(op(doc, '/loans/{id}', 'get').security, [{ staffKey: ['loans:read'] }, { memberToken: ['loans:read'] }]);
  const { document: orders } = toOpenApi(await example('orders.yaml'));
  const partner = (orders as Json).components.securitySchemes.partner;
  assert.equal(partner.flows.clientCredentials.tokenUrl, '/oauth/token');
  assert.equal(partner.flows.clientCredentials.scopes['orders:refund'], 'Refund orders and payments.');
  const { document: help } = toOpenApi(await example('helpdesk.yaml'));
  assert.deepEqual((help as Json).components.securitySchemes.agentLogin, { type: 'http', scheme: 'basic', description: (help as Json).components.securitySchemes.agentLogin.description });
});

test('openapi: list parameters: pagination, sort and filters as the service reads them', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const list = op(doc, '/loans', 'get');
  assert.deepEqual(param(list, 'limit')?.schema, { type: 'integer', minimum: 1, default: 20 }); // clamp: no maximum refused
  assert.equal(param(list, 'cursor')?.schema.type, 'string');
  assert.ok(param(list, 'sort')?.schema.items.enum.includes('-dueDate'));
  assert.deepEqual(param(list, 'status')?.schema.enum, ['requested', 'active', 'overdue', 'returned', 'cancelled', 'lost']);
  assert.equal(param(list, 'id'), undefined); // the id is not a filter
  assert.equal(param(list, 'lateFee'), undefined); // nor is an object
  const { document: orders } = toOpenApi(await example('orders.yaml'));
  const products = op(orders, '/products', 'get');
  assert.deepEqual(param(products, 'pageSize')?.schema, { type: 'integer', minimum: 1, default: 25, maximum: 100 }); // reject
  assert.ok(param(products, 'pageToken'));
});

test('openapi: conditional and idempotency headers where the service honours them; rate-limit fields', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  assert.ok(param(op(doc, '/loans/{id}/approve', 'post'), 'If-Match'));
  assert.ok(param(op(doc, '/books/{id}', 'patch'), 'If-Match'));
  assert.ok(param(op(doc, '/books/{id}', 'get'), 'If-None-Match'));
  assert.equal(param(op(doc, '/books/{id}', 'get'), 'If-Match'), undefined);
  assert.ok(op(doc, '/loans', 'post').parameters.some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey'));
  assert.ok(!op(doc, '/books/{id}', 'patch').parameters.some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey'));
  assert.equal(hdr(doc, op(doc, '/books', 'post').responses['201'], 'RateLimit-Policy').schema.const, '"default";q=600;w=60');
  assert.equal(hdr(doc, op(doc, '/loans', 'post').responses['201'], 'RateLimit-Policy').schema.const, '"loan.create";q=30;w=60');
  assert.equal(op(doc, '/books', 'post').responses['401'].headers['RateLimit-Policy'], undefined);
});

test('openapi: one version per document; versioned fields only in theirs; deprecation', async () => {
  const spec = await example('library.yaml');
  const v2 = toOpenApi(spec);
  const v1 = toOpenApi(spec, { version: '1' });
  const book = (d: Json) => d.components.schemas.Book.properties;
  assert.equal((v2.document.info as Json).version, '2');
  assert.ok(book(v2.document).isbn && !book(v2.document).isbn10);
  assert.ok(book(v1.document).isbn10 && !book(v1.document).isbn);
  assert.ok(v2.findings.some((f) => f.code === 'export-version-field' && f.pointer === '/resources/book/fields/isbn10'));
  // The version selector: optional in the default version, required and fixed in another.
  assert.deepEqual([(v2.document as Json).components.parameters.ApiVersion.required, (v1.document as Json).components.parameters.ApiVersion.required], [false, true]);
  const old = op(v1.document, '/books', 'post');
  assert.equal(old.deprecated, true);
  assert.equal(hdr(v1.document as Json, old.responses['201'], 'Deprecation').schema.const, '@1780272000');
  assert.equal(hdr(v1.document as Json, old.responses['201'], 'Sunset').schema.const, 'Wed, 30 Jun 2027 00:00:00 GMT');
  assert.equal(op(v2.document, '/books', 'post').deprecated, undefined);
  assert.throws(() => toOpenApi(spec, { version: '9' }), RangeError);
  // Path selection puts the prefix in the server URL.
  const { document: orders } = toOpenApi(await example('orders.yaml'));
  assert.deepEqual((orders.servers as Json[]).map((s) => s.url), ['{base_url}/v2', '{base_url}']);
  assert.equal((orders.servers as Json[])[0].variables.base_url.default, 'http://127.0.0.1:3000');
});

test('openapi: the state machine as x-svcspec-states, and transitions described', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const states = (doc as Json).components.schemas.Loan['x-svcspec-states'];
  assert.equal(states.field, 'status');
  assert.equal(states.initial, 'requested');
  assert.deepEqual(states.transitions.return, { from: ['active', 'overdue'], to: 'returned', requires: ['returnCondition'], description: 'The copy is back at the desk.' });
  assert.match(op(doc, '/loans/{id}/return', 'post').description, /^Moves a loan from active, overdue to returned/);
  assert.deepEqual((doc as Json).tags.map((t: Json) => t.name), ['book', 'member', 'loan', 'readingList', 'preferences', 'webhooks']);
});

test('openapi: domain rules as x-svcspec extensions in the format\'s own shapes, and in the descriptions (#14)', async () => {
  const { document: doc } = toOpenApi(await example('library.yaml'));
  const s = (doc as Json).components.schemas;
  assert.deepEqual(s.Member['x-svcspec-unique'], [{ name: 'email', fields: ['email'], ignoreCase: true, error: 'email-taken' }]);
  assert.match(s.Member.description, /No two member records share `email` \(ignoring case\).*Refused with `email-taken`/);
  assert.deepEqual(s.Book['x-svcspec-rules'], [{ rule: '!has(self.available) || !has(self.copies) || self.available <= self.copies', error: 'validation-failed', message: 'A book cannot have more copies on the shelf than the library owns.', field: 'copies' }]);
  assert.deepEqual(s.Member.properties.cardNumber['x-svcspec-managed'], { sequence: 'LIB-{n:8}' });
  assert.equal(s.Book.properties.createdAt['x-svcspec-managed'], 'created-at');
  assert.match(s.Book.properties.createdAt.description, /Set by the service: the time the record was created/);
  assert.deepEqual(s.Loan.properties.book['x-svcspec-on-delete'], { refuse: 'book-has-loans' });
  const approve = op(doc, '/loans/{id}/approve', 'post');
  assert.deepEqual(approve['x-svcspec-guards'], [{ rule: 'refs.book.available > 0', error: 'book-unavailable', message: 'Every copy of the book is out on loan.' }]);
  assert.deepEqual(approve['x-svcspec-effects'], [{ ref: 'book', increment: { available: -1 } }]);
  assert.match(approve.description, /Refused with `book-unavailable` unless `refs.book.available > 0`.*takes 1 from `available`/s);
  const create = op(doc, '/loans', 'post');
  assert.deepEqual(create['x-svcspec-counts'], { open: { resource: 'loan', where: { member: 'self.member', status: ['requested', 'active', 'overdue'] } } });
  assert.equal(create['x-svcspec-guards'].length, 3);
  assert.equal(op(doc, '/loans/{id}', 'get')['x-svcspec-guards'], undefined, 'a read has no guards');
});

test('openapi: what OpenAPI cannot express is a finding with its pointer, never dropped silently', async () => {
  const spec = await example('library.yaml');
  const { document, findings } = toOpenApi(spec);
  const at = (code: string) => findings.filter((f) => f.code === code).map((f) => f.pointer);
  assert.deepEqual(at('export-limits-timeouts'), ['/limits/timeouts']);
  assert.deepEqual(at('export-limits-body'), ['/limits/body']);
  assert.deepEqual(at('export-purpose-users'), ['/purpose/users']);
  assert.deepEqual(at('export-events-elsewhere'), ['/events']);
  assert.deepEqual(at('export-ownership'), ['/resources/readingList', '/resources/preferences']);
  assert.deepEqual(at('export-auth-scheme-details'), ['/authentication/schemes/memberToken']);
  assert.deepEqual(at('export-version-others'), ['/versioning']);
  assert.ok(findings.every((f) => f.severity === 'warning' && f.location?.line));
  // And the prose keeps them: the users and the time-out are in the description.
  const description = (document.info as Json).description as string;
  assert.match(description, /\*\*librarian\*\*/);
  assert.match(description, /after 5s is answered 504/);
});

test('openapi: a spec with several versions and no default describes the newest, and says so', () => {
  const spec: Spec = mustLoad(`
svcspec: 1
purpose: { name: T, summary: T. }
resources:
  thing:
    plural: things
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      old: { type: string, until: "1" }
      new: { type: string, since: "2" }
endpoints:
  thing: [create, read]
versioning:
  select: { header: API-Version }
  versions:
    "1": { status: current }
    "2": { status: current }
`);
  const { document, findings } = toOpenApi(spec);
  assert.equal((document.info as Json).version, '2');
  assert.ok(findings.some((f) => f.code === 'export-version-chosen'));
  assert.ok((document as Json).components.schemas.Thing.properties.new);
  assert.equal((document as Json).components.schemas.Thing.properties.old, undefined);
  // No default: the selector is required, and unknown versions are answered 400.
  assert.equal((document as Json).components.parameters.ApiVersion.required, true);
  assert.ok(op(document, '/things', 'post').responses['400']);
});

test('openapi: a spec stating "no time-out" and "no rate limit" exports no 503/504 time-out and no 429, and says so', async () => {
  const text = (await import('node:fs')).readFileSync(new URL('../../examples/library.yaml', import.meta.url), 'utf8');
  const limits = text.slice(text.indexOf('\nlimits:'));
  const stated = text.replace(/\n  rate:\n(    .*\n|      .*\n)*/, '\n  rate: { none: "Requests are not limited." }\n').replace(/\n  timeouts: .*\n(    .*\n)*/, '\n  timeouts: { none: "Requests run to completion." }\n');
  assert.notEqual(stated, text, 'the example has rate and time-out limits to replace');
  assert.ok(limits.includes('timeouts'));
  const spec = mustLoad(stated);
  assert.equal(spec.limits.none?.rate?.reason, 'Requests are not limited.');
  assert.equal(spec.limits.none?.timeouts?.reason, 'Requests run to completion.');
  const { document: doc } = toOpenApi(spec);
  const approve = op(doc, '/loans/{id}/approve', 'post').responses;
  assert.ok(!approve['504'] && !approve['429'], Object.keys(approve).join(' '));
  // 503 stays, for `unavailable` alone (shutting down, the database file lost), never `timeout`.
  assert.equal(approve['503'].content['application/problem+json'].schema.properties.code.const, 'unavailable');
  assert.match((doc as Json).info.description, /not rate-limited: Requests are not limited\./);
  assert.match((doc as Json).info.description, /no time-out: Requests run to completion\./);
  assert.deepEqual(await openApiErrors(doc), []);
});

test('openapi: actions, bulk bodies and the expand parameter (issue #13), valid and as serve answers them', async () => {
  const { readFileSync } = await import('node:fs');
  const spec = mustLoad(readFileSync(new URL('../serve/fixtures/open-surface.yaml', import.meta.url), 'utf8'));
  const { document } = toOpenApi(spec);
  const doc = document as Json;
  assert.deepEqual(await openApiErrors(document), []);
  assert.deepEqual(structural(document), []);
  const s = doc.components.schemas;
  // An action: its own request and response shapes, 501 among its answers, the prose in its description.
  const remind = op(doc, '/books/{id}/remind', 'post');
  assert.deepEqual(s.BookRemindRequest, { type: 'object', properties: { channel: { type: 'string', enum: ['email', 'sms'] } }, required: ['channel'], additionalProperties: false });
  assert.deepEqual(remind.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/BookRemindResponse' });
  assert.deepEqual(s.BookRemindResponse.required, ['sent']);
  assert.equal(remind.responses['501'].content['application/problem+json'].schema.properties.code.const ?? 'not-implemented', 'not-implemented');
  assert.ok(remind.responses['404'] && remind.responses['422'] && remind.responses['409'], 'the record, the body, the declared quiet-hours');
  assert.match(remind.description, /Sends the reader a reminder/);
  assert.match(remind.description, /answers 501/);
  assert.equal(op(doc, '/books/preview-price', 'post').responses['404'], undefined, 'a collection action has no record to miss');
  assert.deepEqual(op(doc, '/books/{id}/touch', 'post').responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Book' });
  // A bulk create: { items: [create bodies] } of 1 to max, 201 { items: [records] }.
  const bulk = op(doc, '/books/bulk', 'post');
  assert.deepEqual(bulk.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/BookImportRequest' });
  assert.deepEqual(s.BookImportRequest, { type: 'object', properties: { items: { type: 'array', minItems: 1, maxItems: 3, items: { $ref: '#/components/schemas/BookCreate' } } }, required: ['items'], additionalProperties: false });
  assert.deepEqual(bulk.responses['201'].content['application/json'].schema, { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Book' } } }, required: ['items'] });
  assert.ok(bulk.responses['422']);
  // A bulk update: { items: [merge patches, each with the id] }, plain JSON (the body is not itself a merge patch), 200 { items: [records] }.
  const bulkUpdate = op(doc, '/books', 'patch');
  assert.deepEqual(Object.keys(bulkUpdate.requestBody.content), ['application/json']);
  assert.deepEqual(s.BookBulkUpdateRequest.properties.items, { type: 'array', minItems: 1, maxItems: 3, items: { $ref: '#/components/schemas/BookBulkPatch' } });
  assert.deepEqual(s.BookBulkPatch.required, ['id']);
  assert.deepEqual(Object.keys(s.BookBulkPatch.properties), ['id', 'title', 'year']);
  assert.equal(s.BookBulkPatch.properties.id.format, 'uuid');
  assert.equal(s.BookBulkPatch.additionalProperties, false);
  assert.deepEqual(bulkUpdate.responses['200'].content['application/json'].schema.properties.items.items, { $ref: '#/components/schemas/Book' });
  assert.ok(bulkUpdate.responses['422']);
  // A bulk delete: POST { items: [ids] }, 204, Idempotency-Key as on any POST that writes.
  const bulkDelete = op(doc, '/books/bulk-delete', 'post');
  assert.deepEqual(s.BookBulkDeleteRequest, { type: 'object', properties: { items: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', format: 'uuid' } } }, required: ['items'], additionalProperties: false });
  assert.equal(bulkDelete.responses['204'].content, undefined);
  assert.ok(bulkDelete.responses['422']);
  assert.ok(bulkDelete.parameters.some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey'));
  // Expansion: the parameter lists what may be expanded; an expandable ref is its id or the record.
  const list = op(doc, '/picks', 'get');
  assert.deepEqual(param(list, 'expand')?.schema, { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['book', 'shelf'] } });
  const read = op(doc, '/picks/{id}', 'get');
  assert.deepEqual(param(read, 'expand')?.schema.items.enum, ['book', 'shelf', 'also']);
  const expandable = s[read.responses['200'].content['application/json'].schema.$ref.split('/').at(-1)];
  assert.deepEqual(expandable.properties.book.anyOf[1], { $ref: '#/components/schemas/Book' });
  assert.deepEqual(expandable.properties.also.items.anyOf[1], { $ref: '#/components/schemas/Book' });
  assert.equal(read.responses['200'].headers?.ETag, undefined, 'an expanded read is another representation');
});

test('openapi: nested paths with typed parent parameters, and singletons without an id (issue #13)', async () => {
  const { loadSpec } = await import('../../src/load/index.ts');
  const loaded = await loadSpec(new URL('../serve/fixtures/clinic.yaml', import.meta.url).pathname);
  assert.ok(loaded.value);
  const { document } = toOpenApi(loaded.value);
  assert.deepEqual(await openApiErrors(document), []);
  assert.deepEqual(structural(document), []);
  const paths = document.paths as Json;
  const list = paths['/patients/{patientId}/appointments'].get;
  assert.equal(list.operationId, 'appointment.patientAppointments');
  const patientId = list.parameters.find((p: Json) => p.name === 'patientId');
  assert.equal(patientId.in, 'path');
  assert.equal(patientId.schema.type, 'integer', 'typed as the patient id (a sequence)');
  assert.match(patientId.description, /The id of the patient/);
  assert.match(list.description, /Only the appointments of the `patientId`/);
  const item = paths['/patients/{patientId}/appointments/{id}'].get;
  assert.deepEqual(item.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => [p.name, p.schema.type, p.schema.format]), [['patientId', 'integer', undefined], ['id', 'string', 'uuid']]);
  assert.ok(item.responses['404'], 'a child of another parent is 404');
  assert.match(paths['/patients/{patientId}/appointments'].post.description, /`patient` comes from the path/);
  const me = paths['/me'];
  assert.equal(me.get.operationId, 'profile.mine');
  assert.equal((me.get.parameters ?? []).filter((p: Json) => p.in === 'path').length, 0);
  assert.ok(me.get.responses['401'] && me.get.responses['404']);
  assert.ok(me.put.responses['201'] && me.put.responses['200'], 'a PUT on a perOwner: one singleton creates it');
  assert.ok(paths['/profiles'].post.responses['409'], 'a second profile is 409');
});

test('openapi: the protocol promises follow limits.conditional, limits.idempotency, pagination.links and rate.headers (#16)', async () => {
  const library = await example('library.yaml');
  const none = { ...library, limits: { ...library.limits, conditional: undefined, idempotency: undefined, none: { ...library.limits.none, conditional: { reason: 'no validators', pointer: '/limits/conditional' }, idempotency: { reason: 'no keys', pointer: '/limits/idempotency' } }, pagination: { ...library.limits.pagination!, links: [] }, rate: { ...library.limits.rate!, headers: 'none' as const } } };
  const doc = toOpenApi(none).document as Json;
  assert.deepEqual(await openApiErrors(doc), []);
  assert.equal(param(op(doc, '/books/{id}', 'patch'), 'If-Match'), undefined);
  assert.equal(param(op(doc, '/books/{id}', 'get'), 'If-None-Match'), undefined);
  assert.equal(op(doc, '/books/{id}', 'get').responses['304'], undefined);
  assert.equal(op(doc, '/books/{id}', 'get').responses['200'].headers?.ETag, undefined);
  assert.equal(op(doc, '/books/{id}', 'patch').responses['412'], undefined);
  assert.ok(!op(doc, '/loans', 'post').parameters.some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey'));
  assert.equal(doc.components.parameters.IdempotencyKey, undefined);
  assert.equal(op(doc, '/books', 'get').responses['200'].headers?.Link?.description?.includes('next'), undefined);
  assert.equal(op(doc, '/books', 'get').responses['200'].headers?.RateLimit, undefined);
  const own = { ...library, limits: { ...library.limits, conditional: { validators: ['etag', 'last-modified'] as const, writes: true, reads: true, pointer: '/limits/conditional' }, idempotency: { header: 'X-Request-Key', lifetimeMs: 3_600_000, scope: 'address' as const, pointer: '/limits/idempotency' } } };
  const stated = toOpenApi(own as unknown as Spec).document as Json;
  assert.equal(stated.components.parameters.IdempotencyKey.name, 'X-Request-Key');
  assert.match(stated.components.parameters.IdempotencyKey.description, /for 1h, keys being per client address/);
  assert.ok(param(op(stated, '/books/{id}', 'patch'), 'If-Unmodified-Since'));
  assert.ok(param(op(stated, '/books/{id}', 'get'), 'If-Modified-Since'));
  assert.ok(op(stated, '/books/{id}', 'get').responses['200'].headers['Last-Modified']);
});

test('openapi: an action that states effects is performed by the reference: no 501 among its answers, and its description says so (the serve banner too)', async () => {
  const { readFileSync } = await import('node:fs');
  const { endpointLines } = await import('../../src/serve/server.ts');
  const spec = mustLoad(readFileSync(new URL('../conformance/fixtures/talks.yaml', import.meta.url), 'utf8'));
  const { document } = toOpenApi(spec);
  const flag = op(document as Json, '/talks/{id}/flag', 'post');
  assert.equal(flag.responses['501'], undefined, Object.keys(flag.responses).join(' '));
  assert.match(flag.description, /The reference service performs it/);
  assert.doesNotMatch(flag.description, /answers 501/);
  // A prose action beside it still answers 501, and says so.
  const remind = op(document as Json, '/talks/{id}/remind', 'post');
  assert.ok(remind.responses['501']);
  const banner = endpointLines(spec.endpoints);
  assert.ok(banner.some((l) => /talk\.flag$/.test(l)), banner.join('\n'));
  assert.ok(banner.some((l) => /talk\.remind {2}\(prose: 501/.test(l)), banner.join('\n'));
});

test('openapi: the codes domain rules refuse a write with are among its error responses: uniques, guards, record rules, onDelete refuse', async () => {
  const { readFileSync } = await import('node:fs');
  const spec = mustLoad(readFileSync(new URL('../conformance/fixtures/talks.yaml', import.meta.url), 'utf8'));
  const { document } = toOpenApi(spec);
  const doc = document as Json;
  assert.deepEqual(await openApiErrors(document), []);
  /** The codes one status of an operation answers, its response followed where it is shared. */
  const codesAt = (path: string, method: string, status: string): string[] => {
    let response = op(doc, path, method).responses[status];
    if (response?.$ref) response = doc.components.responses[String(response.$ref).split('/').at(-1)!];
    const code = response?.content?.['application/problem+json']?.schema?.properties?.code;
    return code ? (code.enum ?? [code.const]) : [];
  };
  assert.deepEqual(codesAt('/conferences', 'post', '409'), ['slug-taken'], 'a unique');
  assert.deepEqual(codesAt('/talks', 'post', '409'), ['title-taken']);
  assert.deepEqual(codesAt('/talks/{id}', 'patch', '409').sort(), ['talk-locked', 'title-taken'], 'an update guard and a unique');
  assert.deepEqual(codesAt('/conferences/{id}', 'delete', '409'), ['conference-has-talks'], 'onDelete refuse of a ref to it');
  assert.deepEqual(codesAt('/talks/{id}/submit', 'post', '409').sort(), ['cfp-closed', 'invalid-transition', 'too-many-talks'], 'transition guards');
  assert.deepEqual(codesAt('/talks/{talkId}/reviews', 'post', '409').sort(), ['already-reviewed', 'talk-not-submitted'], 'a nested create: its guard and its unique');
  assert.ok(codesAt('/talks/{id}/withdraw', 'post', '422').includes('validation-failed'), 'a record rule a transition can break');
});

test('openapi: where clients subscribe through the API, its routes are operations (tag webhooks), with their bodies, security and errors, as serve answers them', async (t) => {
  const spec = await example('library.yaml');
  const { document: doc } = toOpenApi(spec);
  const d = doc as Json;
  assert.deepEqual(await openApiErrors(d), []);
  const path = spec.events.webhooks!.path!;
  assert.equal(op(d, path, 'post').operationId, 'webhooks.create');
  assert.deepEqual(op(d, path, 'post').requestBody.content['application/json'].schema, { $ref: '#/components/schemas/WebhookSubscriptionCreate' });
  assert.ok(op(d, path, 'post').responses['201'], 'created');
  assert.ok(op(d, path, 'post').responses['401'], 'credentials needed');
  assert.ok(op(d, `${path}/{id}`, 'get').responses['404'], 'another principal\'s is not found');
  assert.deepEqual(op(d, `${path}/{id}/deliveries/{delivery}/replay`, 'post').parameters.map((p: Json) => p.name), ['id', 'delivery']);
  assert.deepEqual(d.components.schemas.WebhookSubscriptionCreate.properties.events.items.enum, spec.events.catalog.map((e) => e.name));
  // What serve answers fits: a subscription made, then listed.
  const { app } = await serve(t, spec);
  const fits = schemaValidator(d);
  const made = await app.inject({ method: 'POST', url: path, payload: { url: 'https://receiver.example/hooks', events: [spec.events.catalog[0]!.name] } });
  assert.equal(made.statusCode, 201, made.body);
  assert.deepEqual(fits(op(d, path, 'post').responses['201'].content['application/json'].schema, made.json()), []);
  const listed = await app.inject({ method: 'GET', url: path });
  assert.deepEqual(fits(op(d, path, 'get').responses['200'].content['application/json'].schema, listed.json()), []);
});

test('openapi: a spec silent on errors is exported with serve\'s default error responses, and the export says they are the runtime\'s default, not the spec\'s', async () => {
  const silent = (await example('library.yaml'));
  const gap: Spec = { ...silent, parts: { ...silent.parts, errors: { ...silent.parts.errors, statement: 'gap' } }, errors: { catalog: [] } as unknown as Spec['errors'] };
  const said = toOpenApi(gap).findings.filter((f) => f.code === 'export-errors-default');
  assert.equal(said.length, 1);
  assert.match(said[0]!.message, /Part 7, Errors, is not shown; the error responses are written as svcspec serve answers them by default \(RFC 9457 problem details/);
  assert.deepEqual(toOpenApi(silent).findings.filter((f) => f.code === 'export-errors-default'), [], 'a stated part 7 is the spec\'s own');
});
