/**
 * Real public OpenAPI documents (test/import/fixtures/real, see its SOURCE.md, and the older
 * fixtures beside it) go the whole way: import -> check (0 errors, gaps allowed) -> serve
 * (the reference service on loopback) -> the tester (0 failures). Actions the document
 * describes only in prose answer 501, and the tester expects it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkSpec } from '../../src/check/index.ts';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { importOpenApi } from '../../src/import/index.ts';
import { serveForTester } from '../conformance/support.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

export const REAL = [
  'real/oai-petstore.yaml',
  'real/oai-petstore-expanded.yaml',
  'real/oai-api-with-examples.yaml',
  'real/oai-uspto.yaml',
  'real/oai-link-example.yaml',
  'real/oai-callback-example.yaml',
  'real/redocly-museum.yaml',
  'real/realworld-conduit.yaml',
  'real/ory-kratos.json',
  'real/ory-hydra.json',
  'swagger-petstore-v3.yaml',
  'traccar.yaml',
];

/**
 * Box's API (1.7 MB, 186 paths, 294 operations): its PUTs that take a few fields are partial
 * updates (operation update, method PUT), its path keys with fragments (`#add_shared_link`)
 * are written at their route, and schema-required members its creates do not take are optional.
 */
const LARGE = ['real/box-openapi.json'];

const imports = new Map<string, ReturnType<typeof importOpenApi>>();
const imported = (name: string) => imports.get(name) ?? imports.set(name, importOpenApi(fixture(name))).get(name)!;

for (const name of [...REAL, ...LARGE]) {
  test(`real document: ${name} imports and checks with 0 errors (gaps allowed); what OpenAPI cannot say is a gap`, async () => {
    const r = await imported(name);
    assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
    const { spec } = r.value;
    assert.ok(spec.endpoints.length > 0, 'endpoints imported');
    const report = checkSpec(spec, []);
    const errors = report.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(errors.map((d) => `${d.code}: ${d.message}`), []);
    // What OpenAPI cannot supply stays a gap, reported with its place, never invented.
    for (const part of ['states', 'events', 'limits', 'versioning'] as const) {
      // The pagination is the one limit a document's list parameters state (Museum's page and limit).
      if (part === 'limits' && spec.limits.pagination) continue;
      assert.equal(spec.parts[part].statement, 'gap', `${part} is a gap`);
      assert.ok(r.diagnostics.some((d) => d.code === 'import-part-gap' && d.part === part && d.location), `the ${part} gap is reported with its place`);
    }
  });

  test(`real document: ${name} imported, served on loopback, passes the tester (prose actions answer 501)`, async (t) => {
    const r = await imported(name);
    assert.ok(r.value);
    const { spec } = r.value;
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
    const run = await runConformance({ spec, baseUrl, principals, seed: 20261124, sleep, now });
    t.diagnostic(`${spec.resources.length} resources, ${spec.endpoints.length} endpoints: ${run.counts.pass} passed, ${run.counts.skip} skipped`);
    assert.equal(run.counts.fail, 0, formatHuman(run));
    assert.ok(run.counts.pass > 0, 'some check passed');
    // What no one could check (a body on a GET, a body where no endpoint takes one) is not applicable, not "not checked" (which fails a run).
    assert.deepEqual(run.results.filter((x) => x.outcome === 'skip' && x.skipKind === 'not-checked' && /carries no body|takes a body/.test(x.message ?? '')).map((x) => `${x.title}: ${x.message}`), []);
    // Each action (prose behaviour) is answered, 501 by the reference, and the tester says so.
    for (const a of spec.endpoints.filter((e) => e.operation === 'action')) {
      const mine = run.results.filter((x) => x.id.startsWith(`${a.id}.`));
      assert.ok(mine.some((x) => x.outcome === 'pass'), `a check of the action ${a.id} passed: ${mine.map((x) => `${x.id} ${x.outcome}`).join(', ') || 'none ran'}`);
    }
  });
}

test('real document: a list\'s query parameters that name fields become its declared filters (Traccar\'s ?deviceId=), the id and the rest reported', async () => {
  const r = await imported('traccar.yaml');
  const list = r.value!.spec.endpoints.find((e) => e.id === 'position.list')!;
  assert.deepEqual(list.query && { filters: list.query.filters.map((f) => [f.field, f.ops]), sort: list.query.sort }, { filters: [['deviceId', ['eq']]], sort: [] });
  const reported = r.diagnostics.filter((d) => d.code === 'import-parameters' && d.message.startsWith('GET /positions '));
  assert.equal(reported.length, 1);
  assert.match(reported[0].message, /query from, query to, query id;/);
  assert.doesNotMatch(reported[0].message, /deviceId/);
});

test('real document: the OAI tictactoe example (3.1, `scheme: Bearer` with JWTs) imports; the keys its JWTs need are the one thing left to give, said at import and by check', async () => {
  const r = await imported('real/oai-tictactoe.yaml');
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  assert.ok(r.diagnostics.some((d) => d.code === 'import-auth-jwt-keys' && d.location), 'the import says the keys are to be given');
  const report = checkSpec(r.value.spec, []);
  assert.deepEqual(report.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code), ['auth-jwt-keys-missing']);
});

test('real document: Museum\'s records are identified by the property their item paths name (eventId), not an id invented beside it', async () => {
  const r = await imported('real/redocly-museum.yaml');
  assert.ok(r.value);
  const event = r.value.spec.resources.find((x) => x.name === 'specialEvent');
  assert.deepEqual(event?.id && { field: event.id.field, assigned: event.id.assigned }, { field: 'eventId', assigned: 'uuid' });
  assert.ok(!r.diagnostics.some((d) => d.code === 'import-resource-id' && /specialEvent/.test(d.message)), 'not among those whose id is left to write');
});

test('real document: RealWorld\'s records inside their envelopes ({"article": …}) are read as such: its articles are created, read, listed ({articles, articlesCount}), changed and deleted by the reference, enveloped, and the tester checks them', async (t) => {
  const r = await imported('real/realworld-conduit.yaml');
  assert.ok(r.value);
  const { spec } = r.value;
  const envelopes = Object.fromEntries(spec.resources.filter((x) => x.envelope).map((x) => [x.name, x.envelope]));
  assert.deepEqual(envelopes, { user: 'user', profile: 'profile', article: 'article' });
  assert.ok(r.diagnostics.some((d) => d.code === 'import-record-envelope' && d.location), 'the envelope is said at import, placed');
  const ops = spec.endpoints.filter((e) => e.resource === 'article' && e.operation !== 'action').map((e) => e.operation).sort();
  assert.deepEqual(ops, ['create', 'delete', 'list', 'read', 'update'], 'no longer prose actions answering 501');
  assert.deepEqual(spec.endpoints.find((e) => e.id === 'article.create')?.request, { kind: 'fields', fields: ['title', 'description', 'body', 'tagList'] }, 'the create takes NewArticle\'s fields, out of its envelope');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const run = await runConformance({ spec, baseUrl, principals, seed: 20261124, sleep, now });
  assert.equal(run.counts.fail, 0, formatHuman(run));
  for (const id of ['article.create', 'article.envelope', 'article.listed', 'article.DeleteArticleComment.path-params']) assert.equal(run.results.find((x) => x.id === id)?.outcome, 'pass', id);
  // Login takes a body of its own ({user: {email, password}}, not a record): a front-end's login is the prose action's 501, not "takes no body".
  const login = spec.endpoints.find((e) => e.id === 'user.Login')!;
  assert.deepEqual(login.request.kind === 'shape' && login.request.fields.map((f) => f.name), ['user']);
  const post = (body: unknown) => fetch(`${baseUrl}/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await post({ user: { email: 'jake@jake.jake', password: 'jakejake' } })).status, 501);
  assert.equal((await post({})).status, 422);
  assert.equal(spec.endpoints.find((e) => e.id === 'tags.GetTags')?.action?.response.kind, 'shape', 'GET /tags answers {tags: [...]}, its own shape');
  // Nothing is left not checked. Its `favorited` query parameter (a username) is not the boolean field: reported, not a filter.
  assert.deepEqual(run.results.filter((x) => x.outcome === 'skip' && x.skipKind === 'not-checked').map((x) => x.id), []);
  // It filters by none of the fields (the document names no such parameter), and other parameters are the service's to refuse or ignore.
  const query = spec.endpoints.find((e) => e.id === 'article.list')?.query;
  assert.deepEqual(query && [query.filters, query.sort, query.undeclared], [[], [], 'either']);
  assert.ok(r.diagnostics.some((d) => d.code === 'import-parameters' && /^GET \/articles takes .*query favorited/.test(d.message)));
});

test('real document: Ory Kratos\'s identities are a resource the reference creates and reads back (untyped traits are type any, the id the service\'s), at the Location the spec reads them', async (t) => {
  const r = await imported('real/ory-kratos.json');
  assert.ok(r.value);
  const { spec } = r.value;
  const identity = spec.resources.find((x) => x.name === 'identity')!;
  assert.deepEqual(identity.id && [identity.id.field, identity.id.assigned], ['id', 'uuid']);
  assert.equal(identity.fields.find((f) => f.name === 'metadata_public')?.type, 'any');
  assert.deepEqual(spec.endpoints.filter((e) => e.resource === 'identity' && e.operation !== 'action').map((e) => e.operation).sort(), ['create', 'delete', 'list', 'read', 'update']);
  const { baseUrl, principals } = await serveForTester(t, spec);
  const headers = { ...(principals[0]?.headers ?? {}), 'content-type': 'application/json' };
  const made = await fetch(`${baseUrl}/admin/identities`, { method: 'POST', headers, body: JSON.stringify({ schema_id: 'default', traits: { email: 'ann@example.org' }, metadata_public: 'plain text' }) });
  assert.equal(made.status, 201, await made.clone().text());
  const body = (await made.json()) as { id: string; metadata_public: unknown };
  assert.equal(body.metadata_public, 'plain text');
  assert.equal(made.headers.get('location'), `/admin/identities/${body.id}`);
  assert.equal((await fetch(`${baseUrl}${made.headers.get('location')}`, { headers })).status, 200);
  // What a new user's walk found misread, now said as it is.
  for (const code of ['import-error-nested', 'import-auth-undeclared', 'import-nested-unbound', 'import-paging-unsayable']) assert.ok(r.diagnostics.some((d) => d.code === code && d.location), code);
});

test('real document: Ory Hydra\'s OAuth 2.0 clients are identified by client_id, the member named after their collection (/admin/clients/{id}), not an id invented beside it', async () => {
  const r = await imported('real/ory-hydra.json');
  assert.ok(r.value);
  const client = r.value.spec.resources.find((x) => x.name === 'oAuth2Client')!;
  assert.deepEqual(client.id && [client.id.field, client.id.assigned], ['client_id', 'service']);
  assert.equal(client.fields.find((f) => f.name === 'client_id')?.readOnly, true, 'the service\'s to set, as check asks');
  assert.ok(!client.fields.some((f) => f.name === 'id'));
  // The resources whose id is left to write are all named: a list cut short ('and 34 more') hid which.
  const left = r.diagnostics.find((d) => d.code === 'import-resource-id')?.message ?? '';
  assert.doesNotMatch(left, / and \d+ more/);
  assert.deepEqual(checkSpec(r.value.spec, []).diagnostics.filter((d) => d.code === 'resource-id-not-readonly' && /oAuth2Client/.test(d.message)).map((d) => d.message), []);
});
