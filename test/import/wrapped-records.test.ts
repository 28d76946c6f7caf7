/**
 * Records inside a wrapper named like its one member (Lago's `AddOn: {add_on: AddOnObject}`):
 * the record is the inner schema, called what the wrapper calls it (addOn), enveloped in the
 * member; request bodies enveloped alike around a schema of their own (`{add_on:
 * AddOnBaseInput}`) or an inline one (`{customer: {external_id, …}}`) are its creates and
 * updates, and none of these wrappers is a resource; a record addressed by
 * `{external_customer_id}` under /customers is identified by its `external_id`. Found by a new
 * user's walk through Lago's document: every record was read as a resource of one member
 * (`add_on`), its creates and lists were actions answering 501, and an `id` the document never
 * gives was invented for it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSpec } from '../../src/check/index.ts';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { importOpenApi } from '../../src/import/index.ts';
import { serveForTester } from '../conformance/support.ts';
import { mustLoad } from '../support/spec.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-import-wrapped-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const FILE = fileURLToPath(new URL('./fixtures/billing-wrapped.yaml', import.meta.url));

test('import: a record inside a wrapper named like its member is the inner schema, enveloped, called as the wrapper calls it; its enveloped requests are its writes', async () => {
  const r = await importOpenApi(FILE);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const spec = r.value.spec;
  const by = (name: string) => spec.resources.find((x) => x.name === name);
  assert.deepEqual(by('addOn') && { envelope: by('addOn')!.envelope, id: by('addOn')!.id?.field, assigned: by('addOn')!.id?.assigned, fields: by('addOn')!.fields.map((f) => f.name) }, { envelope: 'add_on', id: 'code', assigned: 'client', fields: ['lago_id', 'name', 'code', 'amount_cents', 'amount_currency', 'description', 'created_at', 'taxes'] });
  assert.deepEqual(by('customer') && { envelope: by('customer')!.envelope, id: by('customer')!.id?.field }, { envelope: 'customer', id: 'external_id' });
  // The wrappers and the requests' own schemas are no resources.
  for (const name of ['addOnObject', 'addOnBaseInput', 'addOnCreateInput', 'addOnUpdateInput', 'customerObjectExtended', 'customerCreateInput']) assert.equal(by(name), undefined, name);
  // Nor are the parts of records no operation sends or answers: the base of an allOf, the page's metadata.
  for (const name of ['customerBaseObject', 'paginationMeta']) assert.equal(by(name), undefined, name);
  const ops = (resource: string) => spec.endpoints.filter((e) => e.resource === resource).map((e) => `${e.operation} ${e.operationId}`);
  assert.deepEqual(ops('addOn').filter((o) => !o.startsWith('action')), ['list findAllAddOns', 'create createAddOn', 'read findAddOn', 'update updateAddOn', 'delete destroyAddOn']);
  assert.deepEqual(ops('customer').filter((o) => !o.startsWith('action')), ['list findAllCustomers', 'create createCustomer', 'read findCustomer', 'delete destroyCustomer']);
  // Each list names its records after them, the next page and the count inside `meta`: the part states the pages' parameters
  // and one list's body, the other list its own (page:). Before, both lists were actions answering 501.
  const pagination = spec.limits.pagination;
  assert.deepEqual(pagination && { style: pagination.style, position: pagination.positionParam, size: pagination.sizeParam, body: pagination.body }, { style: 'page', position: 'page', size: 'per_page', body: { kind: 'object', items: 'add_ons', next: '/meta/next_page', total: '/meta/total_count' } });
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'customer.list')?.page, { kind: 'object', items: 'customers', next: '/meta/next_page', total: '/meta/total_count' });
  assert.equal(spec.endpoints.find((e) => e.id === 'addOn.list')?.page, undefined);
  // The page's members the format has no place for are named, with their places.
  assert.match(r.diagnostics.find((d) => d.code === 'import-paging-unsayable' && /GET \/add_ons/.test(d.message))?.message ?? '', /'\/meta\/current_page', '\/meta\/prev_page', '\/meta\/total_pages' beside the records/);
  // The add-on's input takes tax_codes, which its records answer as taxes: the create takes the fields it shares, tax_codes named as left out.
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'addOn.create')?.request, { kind: 'fields', fields: ['name', 'code', 'amount_cents', 'amount_currency', 'description'] });
  assert.match(r.diagnostics.find((d) => d.code === 'import-request-members-dropped' && /POST \/add_ons/.test(d.message))?.message ?? '', /takes 'tax_codes', which the records of 'addOn' do not hold; .* it is not carried/);
  // Every add-on answered holds a description; the create's own schema does not require one.
  assert.deepEqual(['name', 'description'].map((n) => by('addOn')!.fields.find((f) => f.name === n)?.required), [true, false]);
  // The metadata a create sends has no lago_id, which every answer's metadata holds: the service's, read-only and not the client's to send.
  const metadata = by('customer')!.fields.find((f) => f.name === 'metadata');
  assert.deepEqual(metadata?.items?.properties?.map((p) => [p.name, p.readOnly, p.required]), [['lago_id', true, false], ['key', false, true], ['value', false, true]]);
  assert.match(r.diagnostics.find((d) => d.code === 'import-nested-service-set')?.message ?? '', /POST \/customers, the create of 'customer', does not send 'metadata\[\]\.lago_id', which its records answer/);
  const create = spec.endpoints.find((e) => e.id === 'customer.create');
  assert.deepEqual(create?.request, { kind: 'fields', fields: ['external_id', 'name', 'currency', 'metadata'] });
  assert.match(r.diagnostics.find((d) => d.code === 'import-resource-id-read' && /'customer'/.test(d.message))?.message ?? '', /'external_id', which its item paths name \{external_customer_id\} with the collection's name/);
  // The error shape is read from the body holding every member of the others (the 401's lacks `code`), not the one used most.
  assert.deepEqual(spec.errors.shape?.members, { code: 'code', title: 'error', status: 'status' });
  assert.match(r.diagnostics.find((d) => d.code === 'import-error-shapes')?.message ?? '', /read from the one holding every member of the others, ApiErrorUnprocessableEntity/);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
});

test('import: the wrapped records imported are served enveloped and pass the tester', async (t) => {
  const r = await importOpenApi(FILE);
  assert.ok(r.value);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, r.value.spec);
  const headers = { 'content-type': 'application/json', ...(principals[0]?.headers ?? {}) };
  const made = await fetch(`${baseUrl}/add_ons`, { method: 'POST', headers, body: JSON.stringify({ add_on: { name: 'Setup', code: 'setup_fee', amount_cents: 5000, amount_currency: 'EUR' } }) });
  assert.equal(made.status, 200, await made.clone().text());
  assert.equal(((await made.json()) as { add_on: { code: string } }).add_on.code, 'setup_fee');
  const read = await fetch(`${baseUrl}/add_ons/setup_fee`, { headers });
  assert.equal(read.status, 200);
  // Served in the document's page shape: the records under their own name, the next page and the count inside `meta`.
  await fetch(`${baseUrl}/add_ons`, { method: 'POST', headers, body: JSON.stringify({ add_on: { name: 'Support', code: 'support', amount_cents: 900, amount_currency: 'USD' } }) });
  const first = await fetch(`${baseUrl}/add_ons?per_page=1`, { headers });
  assert.deepEqual(await first.json(), { add_ons: [(await (await fetch(`${baseUrl}/add_ons/setup_fee`, { headers })).json() as { add_on: unknown }).add_on], meta: { next_page: 2, total_count: 2 } });
  const second = (await (await fetch(`${baseUrl}/add_ons?per_page=1&page=2`, { headers })).json()) as { add_ons: { code: string }[]; meta: unknown };
  assert.deepEqual([second.add_ons.map((a) => a.code), second.meta], [['support'], { next_page: null, total_count: 2 }]);
  assert.deepEqual(Object.keys((await (await fetch(`${baseUrl}/customers`, { headers })).json()) as object), ['customers', 'meta']);
  const report = await runConformance({ spec: r.value.spec, baseUrl, principals, seed: 7, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.ok(report.results.filter((x) => x.part === 'resources' && x.outcome === 'pass').length >= 20, formatHuman(report));
  // The lists are walked in their own shapes.
  for (const id of ['addOn.listed', 'customer.listed', 'addOn.walk']) assert.equal(report.results.find((x) => x.id === id)?.outcome, 'pass', `${id}:\n${formatHuman(report)}`);
});

test('import: what only looks like a wrapped record stays what it is (a review of the wrapper reading)', async () => {
  const r = await importOpenApi(fileURLToPath(new URL('./fixtures/not-envelopes.yaml', import.meta.url)));
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const spec = r.value.spec;
  const names = spec.resources.map((x) => x.name);
  // Answered as alternatives (oneOf) or inside an inline {data: …}: operations answer them, so they are resources.
  for (const name of ['cat', 'dog', 'owner']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
  // A request of one member answered bare is the record's writable part, not an envelope.
  assert.equal(names.includes('newUser'), false, names.join(', '));
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'user.create')?.request, { kind: 'fields', fields: ['profile'] });
  // A record's own member of its name, sent inline, is its field: the create stays a create.
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'profile.create')?.request, { kind: 'fields', fields: ['profile'] });
  assert.equal(spec.resources.find((x) => x.name === 'profile')?.envelope, undefined);
  // {team_member_id} over a member with a team_id: the team's id is not the member's.
  assert.equal(spec.resources.find((x) => x.name === 'member')?.id, undefined);
});

const ORDERS = `openapi: 3.0.3
info: { title: Orders, version: '1' }
paths:
  /orders:
    get:
      parameters: [{ name: page, in: query, schema: { type: integer } }]
      responses: { '200': { description: OK, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Order' } } } } } }
    post:
      requestBody: { content: { application/json: { schema: { type: object, required: [plan_code], properties: { plan_code: { type: string }, note: { type: string }, status: { type: string }, total: { type: number } } } } } }
      responses: { '201': { description: Made, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
  /orders/{orderId}:
    parameters: [{ name: orderId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } } }
  /orders/{orderId}/cancel:
    parameters: [{ name: orderId, in: path, required: true, schema: { type: string } }]
    post:
      operationId: cancelOrder
      requestBody: { content: { application/json: { schema: { type: object, properties: { reason: { type: string }, note: { type: string }, status: { type: string } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Order' } } } } }
components:
  schemas:
    Order: { type: object, properties: { orderId: { type: string, readOnly: true }, note: { type: string }, status: { type: string }, total: { type: number } } }
`;

test('import: a body with members its record never answers is a write of the shared fields only where nothing it needs is lost (second review)', async () => {
  const file = join(dir, 'orders.yaml');
  writeFileSync(file, ORDERS);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const spec = r.value.spec;
  // An action keeps its body whole: the cancel's reason is not dropped, required or not.
  const cancel = spec.endpoints.find((e) => e.id === 'order.cancelOrder');
  assert.deepEqual(cancel?.request.kind === 'shape' && cancel.request.fields.map((f) => f.name), ['reason', 'note', 'status']);
  // The create's body requires plan_code, which the records never answer: not a write of the shared fields, whose create could never succeed.
  assert.notDeepEqual(spec.endpoints.find((e) => e.operation === 'create')?.request, { kind: 'fields', fields: ['note', 'status', 'total'] });
  assert.equal(r.diagnostics.some((d) => d.code === 'import-request-members-dropped'), false, r.diagnostics.map((d) => d.message).join('\n'));
  // A list taking a page but no size parameter: no size is invented, the pagination left unstated.
  assert.equal(spec.limits.pagination, undefined);
  assert.match(r.diagnostics.find((d) => d.code === 'import-paging-sizes')?.message ?? '', /takes no page size parameter .*; the format names a size parameter, so the pagination is left unstated/);
});

const TAXES = `openapi: 3.1.0
info: { title: Taxes, version: '1' }
paths:
  /taxes:
    post:
      requestBody: { content: { application/json: { schema: { type: object, required: [code, rate], properties: { code: { type: string }, rate: { type: string, pattern: '^[0-9]+.?[0-9]*$' } } } } } }
      responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Tax' } } } } }
  /taxes/{code}:
    parameters: [{ name: code, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Tax' } } } } } }
components:
  schemas:
    Tax: { type: object, required: [code, rate], properties: { code: { type: string }, rate: { type: number } } }
`;

test("import: a field a create sends as text and its records answer as a number is said, where the create's schema gives it (a new user's fake of Lago's taxes)", async () => {
  const file = join(dir, 'taxes.yaml');
  writeFileSync(file, TAXES);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  assert.equal(r.value.spec.resources.find((x) => x.name === 'tax')?.fields.find((f) => f.name === 'rate')?.type, 'number');
  const said = r.diagnostics.find((d) => d.code === 'import-field-type-sent');
  assert.match(said?.message ?? '', /POST \/taxes, the create of 'tax', sends 'rate' as string, where its records answer it as number/);
  assert.equal(said?.severity, 'warning');
  assert.equal(said?.location?.line, 6);
});

const LISTS = `openapi: 3.1.0
info: { title: Lists, version: '1' }
paths:
  /coupons:
    get:
      parameters: [{ name: page, in: query, schema: { type: integer } }, { name: per_page, in: query, schema: { type: integer } }]
      responses: { '200': { description: '', content: { application/json: { schema: { type: object, properties: { coupons: { type: array, items: { $ref: '#/components/schemas/Coupon' } }, meta: { $ref: '#/components/schemas/Meta' } } } } } } }
    post:
      requestBody: { content: { application/json: { schema: { type: object, properties: { code: { type: string }, extra: { type: string }, address: { type: object, required: [city], properties: { city: { type: string }, zip: { type: string } } } } } } } }
      responses: { '200': { description: '', content: { application/json: { schema: { $ref: '#/components/schemas/Coupon' } } } } }
  /taxes:
    get:
      parameters: [{ name: page, in: query, schema: { type: integer } }, { name: per_page, in: query, schema: { type: integer } }]
      responses: { '200': { description: '', content: { application/json: { schema: { type: object, properties: { taxes: { type: array, items: { $ref: '#/components/schemas/Tax' } }, meta: { $ref: '#/components/schemas/Meta' } } } } } } }
  /forecasts:
    get: { responses: { '200': { description: '', content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Forecast' } } } } } } }
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Forecast' } } } }
      responses: { '201': { description: '', content: { application/json: { schema: { $ref: '#/components/schemas/Forecast' } } } } }
  /reports/{rid}:
    parameters: [{ name: rid, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: '', content: { application/json: { schema: { $ref: '#/components/schemas/Report' } } } } } }
  /keys:
    post:
      requestBody: { content: { application/json: { schema: { type: object, properties: { key: { type: object, properties: { name: { type: string }, key: { type: string } } } } } } } }
      responses: { '201': { description: '', content: { application/json: { schema: { type: object, properties: { key: { $ref: '#/components/schemas/Key' } } } } } } }
components:
  schemas:
    Tax: { type: object, properties: { code: { type: string }, rate: { type: number } } }
    Coupon: { type: object, properties: { code: { type: string }, extra: {}, address: { type: object, required: [city, zip], properties: { city: { type: string }, zip: { type: string } } } } }
    Meta: { type: object, properties: { current_page: { type: integer }, next_page: { type: [integer, 'null'] }, total_count: { type: integer } } }
    Day: { type: object, properties: { date: { type: string, format: date } } }
    Row: { type: object, properties: { label: { type: string } } }
    Report: { type: object, properties: { rows: { type: array, items: { $ref: '#/components/schemas/Row' } }, meta: { type: object, properties: { total: { type: integer }, links: { type: object, properties: { self: { type: string } } } } } } }
    Key: { type: object, properties: { id: { type: string, readOnly: true }, name: { type: string }, key: { type: string } } }
    Forecast: { type: object, properties: { days: { type: array, items: { $ref: '#/components/schemas/Day' } }, meta: { type: object, properties: { city: { type: string }, total: { type: number } } } } }
`;

test('import: a list stating its own page keeps it in the spec written; a record with a meta of its own stays a record; a create sends fields its way (review)', async () => {
  const file = join(dir, 'lists.yaml');
  writeFileSync(file, LISTS);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  // Written out and loaded back, the list without a summary or an operationId keeps its own page (it was written in short form, and lost it).
  const again = mustLoad(r.value.yaml);
  const pages = (s: typeof again) => s.endpoints.filter((e) => e.operation === 'list').map((e) => [e.id, e.page?.kind === 'object' ? e.page.items : s.limits.pagination?.body.kind === 'object' ? `part:${s.limits.pagination.body.items}` : undefined]);
  assert.deepEqual(pages(again), pages(r.value.spec));
  assert.deepEqual(pages(again).filter(([id]) => id !== 'forecast.list').map(([, items]) => String(items).replace('part:', '')).sort(), ['coupons', 'taxes']);
  assert.equal(again.endpoints.find((e) => e.id === 'tax.list')?.page?.kind, 'object', 'the second list states its own page');
  assert.equal(again.endpoints.find((e) => e.id === 'tax.list')?.query?.undeclared, 'either', 'and keeps its query');
  // A report's meta holds its total and a link to itself, no next page: the report is a record, read as one (second review).
  assert.deepEqual(r.value.spec.endpoints.filter((e) => e.resource === 'report').map((e) => e.operation), ['read']);
  // A key sent as {key: {name, key}}, where the record's own `key` is text: the envelope, requests and answers alike (second review).
  const key = r.value.spec.resources.find((x) => x.name === 'key');
  assert.deepEqual([key?.envelope, key?.envelopeRequests, r.value.spec.endpoints.find((e) => e.id === 'key.create')?.request], ['key', undefined, { kind: 'fields', fields: ['name', 'key'] }]);
  // A forecast's meta holds its city and its rain in mm, typed as no page's: the forecast is a record, its list a list of them.
  assert.deepEqual(r.value.spec.endpoints.filter((e) => e.resource === 'forecast').map((e) => e.operation), ['list', 'create']);
  // `extra` holds any value: sent as text, nothing to say of its type; address.zip, required in answers, is optional to send.
  assert.equal(r.diagnostics.some((d) => d.code === 'import-field-type-sent'), false, r.diagnostics.map((d) => d.message).join('\n'));
  const address = r.value.spec.resources.find((x) => x.name === 'coupon')?.fields.find((f) => f.name === 'address');
  assert.deepEqual(address?.properties?.map((p) => [p.name, p.required, p.readOnly]), [['city', true, false], ['zip', false, false]]);
  assert.match(r.diagnostics.find((d) => d.code === 'import-required-optional-on-create' && /address\.zip/.test(d.message))?.message ?? '', /takes 'address\.zip' without requiring it/);
});

test("import: pages whose next and count sit in meta.links and meta (Vultr's convention), ended by an empty next, are read and walked", async (t) => {
  const r = await importOpenApi(fileURLToPath(new URL('./fixtures/cloud-meta-links.yaml', import.meta.url)));
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  const spec = r.value.spec;
  const p = spec.limits.pagination;
  assert.deepEqual(p && [p.style, p.positionParam, p.sizeParam, p.body], ['cursor', 'cursor', 'per_page', { kind: 'object', items: 'instances', next: '/meta/links/next', total: '/meta/total' }]);
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'ssh-key.list')?.page, { kind: 'object', items: 'ssh_keys', next: '/meta/links/next', total: '/meta/total' });
  assert.match(r.diagnostics.find((d) => d.code === 'import-paging-next-never-null')?.message ?? '', /GET \/instances types its page's '\/meta\/links\/next' without null/);
  // The page's meta is the page's, no resource (second review).
  assert.deepEqual(spec.resources.map((x) => x.name), ['instance', 'ssh-key']);
  // Every request bare; one answer bare too (the PATCH): the requests stay bare, the PATCH's answer is the one difference said, once.
  assert.deepEqual([spec.resources[0]!.envelope, spec.resources[0]!.envelopeRequests], ['instance', 'bare']);
  assert.deepEqual(r.diagnostics.filter((d) => d.code === 'import-record-envelope-mixed').map((d) => d.message.replace(/;.*/, '')), ["The records of 'instance' are sent or answered inside 'instance' by some operations and bare by PATCH /instances/{instance-id}"]);
  // A service ending its pages with "" (its schema's next is never null): the walk ends there, nothing fails.
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, (app) => app.addHook('onSend', async (_request, _reply, payload) => (typeof payload === 'string' && payload.includes('"links":{"next":null') ? payload.replace('"links":{"next":null', '"links":{"next":""') : payload)));
  const headers = principals[0]!.headers;
  // Created bare, answered inside `ssh_key`, as the document's bodies are (envelope: {member, requests: bare}).
  assert.deepEqual(spec.resources.find((x) => x.name === 'ssh-key') && [spec.resources.find((x) => x.name === 'ssh-key')!.envelope, spec.resources.find((x) => x.name === 'ssh-key')!.envelopeRequests], ['ssh_key', 'bare']);
  for (const name of ['a', 'b', 'c']) {
    const made = await fetch(`${baseUrl}/ssh-keys`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name, ssh_key: `ssh-ed25519 ${name}` }) });
    assert.equal(made.status, 201, await made.clone().text());
    assert.deepEqual(Object.keys((await made.json()) as object), ['ssh_key']);
  }
  const last = (await (await fetch(`${baseUrl}/ssh-keys?per_page=5`, { headers })).json()) as { ssh_keys: unknown[]; meta: unknown };
  assert.deepEqual([last.ssh_keys.length, last.meta], [3, { links: { next: '' }, total: 3 }]);
  const report = await runConformance({ spec, baseUrl, principals, seed: 11, sleep, now });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.results.find((x) => x.id === 'ssh-key.listed')?.outcome, 'pass', formatHuman(report));
});
