/**
 * The OpenAPI import on real documents (test/import/fixtures, see its README): each becomes a
 * spec that loads and checks, with the resources, endpoints and fields of the source, gaps
 * for what OpenAPI cannot say, and an export back to OpenAPI that keeps every path and method.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { load as parseYaml } from 'js-yaml';
import { checkSpec } from '../../src/check/index.ts';
import { toOpenApi } from '../../src/export/index.ts';
import { importOpenApi, type ImportResult } from '../../src/import/index.ts';
import { LOAD_CODES } from '../../src/load/codes.ts';
import { loadSpecText } from '../../src/load/index.ts';
import type { Diagnostic } from '../../src/spec/diagnostics.ts';
import type { Endpoint, Field, Resource } from '../../src/spec/model.ts';

type Json = Record<string, any>;

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

const cache = new Map<string, Promise<{ value: ImportResult; findings: readonly Diagnostic[] }>>();
function imported(name: string) {
  if (!cache.has(name)) {
    cache.set(name, importOpenApi(fixture(name)).then((r) => {
      assert.ok(r.value, `${name} did not import: ${r.diagnostics.map((d) => d.message).join('; ')}`);
      return { value: r.value, findings: r.diagnostics };
    }));
  }
  return cache.get(name)!;
}

const resource = (v: ImportResult, name: string): Resource => {
  const r = v.spec.resources.find((x) => x.name === name);
  assert.ok(r, `no resource ${name}`);
  return r;
};
const field = (r: Resource, name: string): Field => {
  const f = r.fields.find((x) => x.name === name);
  assert.ok(f, `no field ${r.name}.${name}`);
  return f;
};
const endpoint = (v: ImportResult, id: string): Endpoint => {
  const e = v.spec.endpoints.find((x) => x.id === id);
  assert.ok(e, `no endpoint ${id}`);
  return e;
};

/** `GET /pets/{}`: a route, parameter names aside (the import writes the record's as `{id}`). */
const route = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
function routes(doc: Json): string[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.keys(item as Json).filter((m) => METHODS.includes(m)).map((m) => route(m, path))).sort();
}

const FIXTURES = ['petstore.yaml', 'swagger-petstore-v3.yaml', 'traccar.yaml'];

for (const name of FIXTURES) {
  test(`import: ${name} gives a spec that loads (YAML and JSON) and checks without load errors`, async () => {
    const { value } = await imported(name);
    const yaml = loadSpecText(value.yaml, { file: 'imported.yaml', kind: 'yaml' });
    assert.ok(yaml.value);
    assert.deepEqual(yaml.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
    const json = loadSpecText(value.json, { file: 'imported.json', kind: 'json' });
    assert.ok(json.value);
    assert.deepEqual(json.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
    assert.deepEqual(json.value.endpoints.map((e) => e.id), yaml.value.endpoints.map((e) => e.id));
    const loadCodes = new Set<string>(Object.values(LOAD_CODES).map((d) => d.code));
    const report = checkSpec(yaml.value, yaml.diagnostics);
    assert.deepEqual(report.diagnostics.filter((d) => loadCodes.has(d.code)).map((d) => d.message), []);
    // The JSON output holds all nine parts, gaps as {}.
    assert.deepEqual(Object.keys(JSON.parse(value.json)), ['svcspec', 'purpose', 'resources', 'states', 'endpoints', 'authentication', 'events', 'errors', 'limits', 'versioning']);
  });

  test(`import: ${name}: states, events, limits and versioning are gaps, each reported with a pointer into the document`, async () => {
    const { value, findings } = await imported(name);
    for (const part of ['states', 'events', 'limits', 'versioning'] as const) {
      assert.equal(value.spec.parts[part].statement, 'gap', part);
      const gap = findings.find((f) => f.code === 'import-part-gap' && f.part === part);
      assert.ok(gap, `no gap finding for ${part}`);
      assert.equal(gap.severity, 'warning');
      assert.equal(gap.location?.file, fixture(name));
      assert.equal(typeof gap.pointer, 'string');
    }
    assert.match(value.yaml, /^# 3\. State machines[^\n]*\n# A gap: OpenAPI has no states nor transitions[^]*?\nstates: \{\}$/m);
    assert.match(value.yaml, /\nversioning: \{\}\n$/);
    assert.ok(findings.some((f) => f.code === 'import-purpose-users'));
  });

  test(`import: ${name}: the export back to OpenAPI keeps every path and method, and is valid`, async () => {
    const { value } = await imported(name);
    const source = parseYaml(readFileSync(fixture(name), 'utf8')) as Json;
    const { document } = toOpenApi(value.spec);
    assert.deepEqual(routes(document), routes(source));
    await SwaggerParser.validate(structuredClone(document) as never); // throws on an invalid document
  });
}

test('import: the OAI petstore (3.0) maps to one resource and its list, create and read, and checks without errors', async () => {
  const { value, findings } = await imported('petstore.yaml');
  const { spec } = value;
  assert.equal(spec.purpose.name, 'Swagger Petstore');
  assert.deepEqual(spec.resources.map((r) => r.name), ['pet']);
  const pet = resource(value, 'pet');
  assert.equal(pet.plural, 'pets');
  // OpenAPI names no id: the property `id` is read as it, and being required in the body the create takes, the client gives it.
  assert.deepEqual(pet.id && { field: pet.id.field, assigned: pet.id.assigned }, { field: 'id', assigned: 'client' });
  assert.ok(findings.some((f) => f.code === 'import-resource-id-read' && f.message.includes('the client gives it') && f.location), 'the reading is reported where the property stands');
  assert.deepEqual(pet.fields.map((f) => [f.name, f.type, f.format, f.required]), [['id', 'integer', 'int64', true], ['name', 'string', undefined, true], ['tag', 'string', undefined, false]]);
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.method} ${e.path}`), ['pet.list GET /pets', 'pet.create POST /pets', 'pet.read GET /pets/{id}']);
  assert.deepEqual(endpoint(value, 'pet.list').responses.map((r) => [r.status, r.body]), [[200, 'page']]);
  assert.deepEqual(endpoint(value, 'pet.create').request, { kind: 'resource', partial: false });
  assert.deepEqual(endpoint(value, 'pet.create').responses.map((r) => [r.status, r.body]), [[201, 'none']]);
  // `Error`, used only by `default` responses, is the error shape, not a resource.
  assert.deepEqual(spec.errors.shape && { kind: spec.errors.shape.kind, members: spec.errors.shape.members }, { kind: 'custom', members: { code: 'code', title: 'message' } });
  assert.equal(spec.errors.catalog.length, 0);
  assert.equal(spec.parts.authentication.statement, 'gap');
  assert.ok(findings.some((f) => f.code === 'import-list-page' && f.location?.line === 36));
  assert.ok(findings.some((f) => f.code === 'import-parameters' && /query limit/.test(f.message)));
  const report = checkSpec(spec, []);
  assert.deepEqual(report.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
});

test('import: the Swagger Petstore v3 (3.0): CRUD where honest, named endpoints otherwise, its schemes and scopes', async () => {
  const { value, findings } = await imported('swagger-petstore-v3.yaml');
  const { spec } = value;
  // Address, Category, Customer and Tag are parts of other records that no operation sends or answers: no collections of their own.
  assert.deepEqual(spec.resources.map((r) => r.name).sort(), ['apiResponse', 'order', 'pet', 'store', 'user']);
  assert.equal(spec.endpoints.length, 19);
  const pet = resource(value, 'pet');
  assert.equal(field(pet, 'name').required, true);
  assert.deepEqual([field(pet, 'photoUrls').type, field(pet, 'photoUrls').items?.type, field(pet, 'photoUrls').required], ['array', 'string', true]);
  assert.deepEqual(field(pet, 'status').enum, ['available', 'pending', 'sold']);
  assert.equal(field(pet, 'status').description, 'pet status in the store');
  // A $ref to another object keeps the body's shape: the whole category, with its fields.
  assert.deepEqual(field(pet, 'category').properties?.map((f) => f.name), ['id', 'name']);
  assert.ok(findings.some((f) => f.code === 'import-schema-not-resource' && /'Category' is a part of other schemas that no operation sends or answers as a record/.test(f.message)));
  assert.deepEqual(field(resource(value, 'order'), 'shipDate').format, 'date-time');
  assert.deepEqual(resource(value, 'store').fields, []);

  assert.deepEqual(spec.endpoints.filter((e) => e.resource === 'pet').map((e) => `${e.id} ${e.method} ${e.path}`), [
    'pet.updatePet PUT /pet', 'pet.create POST /pet', 'pet.findPetsByStatus GET /pet/findByStatus', 'pet.findPetsByTags GET /pet/findByTags',
    'pet.read GET /pet/{id}', 'pet.updatePetWithForm POST /pet/{id}', 'pet.delete DELETE /pet/{id}', 'pet.uploadFile POST /pet/{id}/uploadImage',
  ]);
  assert.deepEqual(endpoint(value, 'user.read').path, '/user/{id}');
  assert.deepEqual(endpoint(value, 'order.read').path, '/store/order/{id}');
  assert.deepEqual(endpoint(value, 'pet.create').responses.map((r) => [r.status, r.body, r.description]), [[200, 'resource', 'Successful operation'], [405, 'error', 'Invalid input']]);
  assert.ok(findings.some((f) => f.code === 'import-endpoint-named' && /PUT \/pet is not a standard operation/.test(f.message)));
  assert.ok(findings.some((f) => f.code === 'import-body-inexpressible' && /GET \/store\/inventory \(a map\)/.test(f.message)));
  // A search on a path of its own is an action, which answers no page: its array of pets is
  // said to be written as none (as it is), not as a page; one finding, not two that disagree.
  assert.deepEqual(endpoint(value, 'pet.findPetsByStatus').responses.map((r) => [r.status, r.body]), [[200, 'none'], [400, 'error']]);
  assert.deepEqual(findings.filter((f) => /GET \/pet\/findByStatus \(|GET \/pet\/findByStatus answers/.test(f.message)).map((f) => f.code), ['import-body-inexpressible']);
  assert.deepEqual(findings.filter((f) => f.code === 'import-list-page').map((f) => f.message), []);

  const auth = spec.authentication;
  assert.deepEqual(auth.schemes.map((s) => [s.name, s.type]), [['api_key', 'apiKey']]);
  assert.deepEqual(auth.scopes.map((s) => s.name), ['write:pets', 'read:pets']);
  assert.ok(findings.some((f) => f.code === 'import-auth-scheme' && /petstore_auth/.test(f.message) && /implicit/.test(f.message)));
  assert.deepEqual(auth.rules.filter((r) => r.public).map((r) => r.match), ['order.*', 'user.*']);
  assert.deepEqual(endpoint(value, 'pet.create').auth, { public: false, schemes: ['api_key'], scopes: ['read:pets', 'write:pets'] });
  assert.deepEqual(endpoint(value, 'pet.read').auth?.scopes, [], 'api_key OR oauth: only the scopes both alternatives ask for');
  assert.equal(spec.parts.errors.statement, 'gap', 'its error responses have no body schema');
});

test('import: Traccar (3.1, 38 paths): every operation an endpoint, its collections as CRUD, its bearer scheme reported', async () => {
  const { value, findings } = await imported('traccar.yaml');
  const { spec } = value;
  assert.equal(spec.resources.length, 22);
  assert.equal(spec.endpoints.length, 64);
  const device = spec.endpoints.filter((e) => e.resource === 'device').map((e) => `${e.id} ${e.method} ${e.path}`);
  assert.deepEqual(device, [
    'device.list GET /devices', 'device.create POST /devices', 'device.replace PUT /devices/{id}', 'device.delete DELETE /devices/{id}',
    'device.putDevicesAccumulators PUT /devices/{id}/accumulators',
  ]);
  assert.equal(resource(value, 'device').plural, 'devices');
  assert.equal(endpoint(value, 'event.read').path, '/events/{id}');
  assert.equal(endpoint(value, 'commandType.list').path, '/commands/types');
  assert.deepEqual(field(resource(value, 'position'), 'geofenceIds').items?.type, 'integer');
  // 3.1: `nullable` is not a keyword of the dialect; it is reported, not applied.
  assert.equal(field(resource(value, 'user'), 'expirationTime').nullable, undefined);
  assert.ok(findings.some((f) => f.code === 'import-nullable-ignored' && /expirationTime/.test(f.message)));
  assert.deepEqual(spec.authentication.schemes.map((s) => [s.name, s.type, s.type === 'bearer' ? s.tokens : undefined]), [['BasicAuth', 'basic', undefined], ['ApiKey', 'bearer', 'opaque']]);
  assert.ok(findings.some((f) => f.code === 'import-auth-bearer' && /'ApiKey'/.test(f.message)));
  assert.deepEqual(spec.authentication.rules, [], 'every operation needs a credential and no scopes: the default');
  assert.ok(spec.endpoints.every((e) => e.auth && !e.auth.public));
});
