/**
 * Request-body validation: every kind of violation refused with 422 and the exact JSON
 * pointer, in our words; no coercion; unknown and readOnly members refused; refs checked
 * against the store; limits.fields applied; every violation listed. Through inject().
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileValidators, createAjv } from '../../src/serve/validation.ts';
import { mustLoad } from '../support/spec.ts';
import { exampleSpec, serve } from './support/open-app.ts';
import { pointersOf, send, violationAt } from './support/requests.ts';

const KIT = (catalog = 'validation-failed: {status: 422, title: Validation failed}') => `
svcspec: 1
purpose: {name: Kit, summary: Keeps gadgets., users: [{name: tinkerer, tasks: [keep gadgets]}]}
resources:
  maker:
    plural: makers
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      name: {type: string, required: true}
  gadget:
    plural: gadgets
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      name: {type: string, required: true, minLength: 2, maxLength: 10}
      code: {type: string, pattern: '^[A-Z]{3}-[0-9]+$'}
      label: {type: string, pattern: '^\\p{Lu}'}
      glyphs: {type: string, maxLength: 2}
      price: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1000, multipleOf: 0.01}
      count: {type: integer, minimum: 0, maximum: 9}
      active: {type: boolean}
      color: {type: string, enum: [red, green, blue]}
      website: {type: string, format: uri}
      note: {type: string, nullable: true}
      free: {type: string}
      tags: {type: array, items: {type: string, maxLength: 5}}
      parts:
        type: array
        maxItems: 5
        items:
          type: object
          properties:
            name: {type: string, required: true}
            qty: {type: integer, minimum: 1}
      size:
        type: object
        properties:
          w: {type: number, required: true}
          h: {type: number, required: true}
          unit: {type: string, enum: [mm, cm], default: mm}
      maker: {type: ref, resource: maker}
      secret: {type: string, writeOnly: true}
      serial: {type: string, readOnly: true}
states: {none: No life cycle.}
endpoints:
  maker: [create, read]
  gadget: [create, read, update, replace, delete]
authentication: {none: Open.}
events: {none: None.}
errors:
  shape: problem
  catalog: {${catalog}}
limits: {fields: {maxStringLength: 20, maxArrayItems: 3}}
versioning: {none: One version.}
`;

const BASE = { name: 'Gizmo' };

/** [what, extra members of the body, pointer, message]. */
const VIOLATIONS: readonly [string, Record<string, unknown>, string, RegExp][] = [
  ['wrong type', { name: 5 }, '/name', /^must be text, not 5$/],
  ['a number sent as text (no coercion)', { price: '12.5' }, '/price', /^must be a number, not text \('12\.5'\)$/],
  ['a fraction for a whole number', { count: 1.5 }, '/count', /^must be a whole number, not 1\.5$/],
  ['a boolean sent as text', { active: 'true' }, '/active', /^must be true or false, not text/],
  ['null where null is not allowed', { name: null }, '/name', /^must be text, not null$/],
  ['not in the enum', { color: 'gren' }, '/color', /^must be one of 'red', 'green', 'blue', not text \('gren'\) \(did you mean 'green'\?\)$/],
  ['below the minimum', { count: -1 }, '/count', /^must be at least 0, not -1$/],
  ['above the maximum', { count: 10 }, '/count', /^must be at most 9, not 10$/],
  ['at the exclusive minimum', { price: 0 }, '/price', /^must be more than 0, not 0$/],
  ['at the exclusive maximum', { price: 1000 }, '/price', /^must be less than 1000, not 1000$/],
  ['not a multiple', { price: 1.234 }, '/price', /^must be a multiple of 0\.01, not 1\.234$/],
  ['too short', { name: 'G' }, '/name', /^must be at least 2 characters$/],
  ['too long', { name: 'Gizmo Gadget' }, '/name', /^must be at most 10 characters$/],
  ['longer than limits.fields.maxStringLength', { free: 'x'.repeat(21) }, '/free', /^must be at most 20 characters$/],
  ['longer in code points, not UTF-16 units', { glyphs: '😀😀😀' }, '/glyphs', /^must be at most 2 characters$/],
  ['not matching the pattern', { code: 'ab-1' }, '/code', /^must match the pattern \^\[A-Z\]\{3\}-\[0-9\]\+\$, not 'ab-1'$/],
  ['not matching a Unicode pattern', { label: 'élan' }, '/label', /^must match the pattern/],
  ['not in the format', { website: 'not a uri' }, '/website', /^must be an absolute URI, not 'not a uri'$/],
  ['an unknown field', { colour: 'red' }, '/colour', /^is not a field of gadget \(did you mean 'color'\?\)$/],
  ['a readOnly field', { serial: 'S-1' }, '/serial', /^is set by the service; do not send it$/],
  ['the service-assigned id', { id: '6f1c1c55-1b7a-4a43-9f1e-3f7c6f0f8a11' }, '/id', /^is assigned by the service/],
  ['a nested member of the wrong type', { size: { w: 'wide', h: 1 } }, '/size/w', /^must be a number, not text/],
  ['a nested required member missing', { size: { w: 1 } }, '/size/h', /^is required$/],
  ['an unknown nested member', { size: { w: 1, h: 1, d: 2 } }, '/size/d', /^is not a field of 'size'$/],
  ['an array item', { tags: ['ok', 'toolong'] }, '/tags/1', /^must be at most 5 characters$/],
  ['more items than limits.fields.maxArrayItems', { tags: ['a', 'b', 'c', 'd'] }, '/tags', /^must have at most 3 items$/],
  ['a member of an object in an array', { parts: [{ name: 'a' }, { name: 'b', qty: 0 }] }, '/parts/1/qty', /^must be at least 1, not 0$/],
  ['a required member of an object in an array', { parts: [{ qty: 2 }] }, '/parts/0/name', /^is required$/],
  ['a ref of the wrong type', { maker: '1' }, '/maker', /^must be a whole number, not text \('1'\)$/],
  ['a ref to a missing record', { maker: 99 }, '/maker', /^refers to maker '99', which does not exist$/],
];

describe('violations are refused with 422 and the exact pointer', () => {
  for (const [what, extra, pointer, message] of VIOLATIONS) {
    test(what, async (t) => {
      const { app } = await serve(t, KIT());
      const r = await send(app, 'POST', '/gadgets', { ...BASE, ...extra });
      assert.match(violationAt(r, pointer), message);
      assert.deepEqual(pointersOf(r), [pointer], 'nothing else is reported');
    });
  }

  test('a missing required field', async (t) => {
    const { app } = await serve(t, KIT());
    assert.match(violationAt(await send(app, 'POST', '/gadgets', {}), '/name'), /^is required$/);
  });

  test('every failing field is listed at once', async (t) => {
    const { app } = await serve(t, KIT());
    const r = await send(app, 'POST', '/gadgets', { price: '1', count: 99, color: 'pink', serial: 'x', extra: true, maker: 7 });
    assert.equal(r.status, 422);
    assert.deepEqual(new Set(pointersOf(r)), new Set(['/name', '/price', '/count', '/color', '/serial', '/extra', '/maker']));
    assert.match(r.body.detail, /^7 fields of the request are not valid/);
  });

  for (const [what, payload, message] of [
    ['a list', '[1, 2]', /not a list$/],
    ['text', '"gizmo"', /not text$/],
    ['null', 'null', /not null$/],
    ['a number', '42', /not a whole number$/],
  ] as const) {
    test(`a body that is ${what}, not an object`, async (t) => {
      const { app } = await serve(t, KIT());
      const r = await app.inject({ method: 'POST', url: '/gadgets', headers: { 'content-type': 'application/json' }, payload });
      const body = { status: r.statusCode, headers: r.headers, body: r.json() };
      assert.match(violationAt(body, ''), /^the body must be a JSON object with the fields of a gadget, /);
      assert.match(violationAt(body, ''), message);
    });
  }

  test('no body at all', async (t) => {
    const { app } = await serve(t, KIT());
    const r = await send(app, 'POST', '/gadgets');
    assert.match(violationAt(r, ''), /^the request needs a body/);
  });
});

describe('what is accepted', () => {
  test('writeOnly fields, null where nullable, Unicode within limits; defaults of nested members', async (t) => {
    const { app } = await serve(t, KIT());
    const maker = await send(app, 'POST', '/makers', { name: 'Acme' });
    assert.equal(maker.status, 201);
    const r = await send(app, 'POST', '/gadgets', {
      name: 'Gizmo', secret: 'hush', note: null, glyphs: '😀😀', label: 'Élan', price: 19.99, code: 'ABC-12',
      size: { w: 1, h: 2 }, parts: [{ name: 'bolt', qty: 2 }], maker: maker.body.id, tags: ['a', 'b', 'c'], website: 'https://ex.org/g',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.note, null);
    assert.deepEqual(r.body.size, { w: 1, h: 2, unit: 'mm' });
    assert.equal('secret' in r.body, false, 'writeOnly is never returned');
  });

  test('a spec that maps validation-failed to its own code answers with it', async (t) => {
    const { app } = await serve(t, KIT('bad-input: {status: 400, title: Bad input, for: validation-failed}'));
    const r = await send(app, 'POST', '/gadgets', { name: 1 });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'bad-input');
    assert.deepEqual(pointersOf(r), ['/name']);
  });

  test('library: refs to a uuid resource and a sequence resource are checked for existence', async (t) => {
    const { app } = await serve(t, await exampleSpec('library.yaml'));
    const r = await send(app, 'POST', '/loans', { book: '6f1c1c55-1b7a-4a43-9f1e-3f7c6f0f8a11', member: 1 });
    assert.match(violationAt(r, '/book'), /^refers to book '6f1c1c55-1b7a-4a43-9f1e-3f7c6f0f8a11', which does not exist$/);
    assert.match(violationAt(r, '/member'), /^refers to member '1', which does not exist$/);
    const list = await send(app, 'POST', '/reading-lists', { name: 'Later', books: [1] });
    assert.match(violationAt(list, '/books/0'), /^must be text, not 1$/);
  });

  test('library: an endpoint with a fields list takes only those fields', async (t) => {
    const { app } = await serve(t, await exampleSpec('library.yaml'));
    const r = await send(app, 'POST', '/loans', { book: 'x', member: 1, returnCondition: 'good' });
    assert.match(violationAt(r, '/returnCondition'), /^is not accepted by this request, which takes book, member, dueDate, notes$/);
  });
});

describe('compiled per version', () => {
  test('since/until select the fields when a version is given; without one, every field is in', async () => {
    const spec = await exampleSpec('library.yaml');
    const book = spec.resources.find((r) => r.name === 'book')!;
    const ajv = createAjv();
    const body = { title: 'Dune', authors: ['Frank Herbert'], isbn: '9780441013593', isbn10: '0441013597' };
    assert.deepEqual(compileValidators(spec, ajv, book).create.check(body), []);
    assert.deepEqual(compileValidators(spec, ajv, book, { version: '1' }).create.check(body).map((v) => v.pointer), ['/isbn']);
    assert.deepEqual(compileValidators(spec, ajv, book, { version: '2' }).create.check(body).map((v) => v.pointer), ['/isbn10']);
  });

  test('a fields-list validator for a transition requires every listed field', () => {
    const spec = mustLoad(KIT());
    const gadget = spec.resources.find((r) => r.name === 'gadget')!;
    const v = compileValidators(spec, createAjv(), gadget).fields(['color', 'note'], 'all');
    assert.deepEqual(v.check({}).map((x) => [x.pointer, x.message]), [['/color', 'is required'], ['/note', 'is required']]);
    assert.deepEqual(v.check({ color: 'red', note: null }), []);
    assert.match(v.check({ color: 'red', note: 'x', name: 'y' })[0].message, /^is not accepted by this request, which takes color, note$/);
    assert.equal(compileValidators(spec, createAjv(), gadget).fields([], 'all').optionalBody, true);
  });
});
