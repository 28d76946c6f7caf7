/**
 * The compiled check of an answer's records (values.ts objectFits) reads them as
 * objectProblems does: for any value, it passes exactly those in which objectProblems finds
 * nothing. Fields of every type, nullable, with enums, nested objects, arrays of items and refs
 * (expanded or not); values drawn at random around them (fast-check).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Field, Shape } from '../../src/spec/model.ts';
import { objectFits, objectProblems } from '../../src/proxy/parts/values.ts';

const field = (name: string, shape: Omit<Shape, 'pointer'>, more: Partial<Field> = {}): Field => ({ name, pointer: `/f/${name}`, required: false, readOnly: false, writeOnly: false, hasDefault: false, ...shape, ...more });
const FIELDS: readonly Field[] = [
  field('id', { type: 'integer' }, { required: true }),
  field('title', { type: 'string' }, { required: true }),
  field('price', { type: 'number', nullable: true }),
  field('done', { type: 'boolean' }),
  field('status', { type: 'string', enum: ['open', 'done'] }),
  field('level', { type: 'integer', enum: [1, 2, 3], nullable: true }),
  field('owner', { type: 'ref', resource: 'user' }),
  field('tags', { type: 'array', items: { type: 'string', pointer: '/t' } }),
  field('grid', { type: 'array', items: { type: 'array', items: { type: 'integer', enum: [0, 1], pointer: '/g2' }, pointer: '/g1' }, nullable: true }),
  field('address', { type: 'object', properties: [field('city', { type: 'string' }, { required: true }), field('zip', { type: 'integer', nullable: true })] }),
  field('any', { type: 'object' }),
  field('list', { type: 'array' }),
];

/** Values near the fields' own: each member of a valid record, or something else of any JSON type. */
const member = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('open', 'done', 'x', ''), fc.constantFrom(0, 1, 2), fc.array(fc.constantFrom('a', 1, null, [0, 1], [2]), { maxLength: 3 }), fc.record({ city: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), zip: fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 2 })) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 2 }));
const record = fc.dictionary(fc.constantFrom(...FIELDS.map((f) => f.name), 'extra', 'constructor'), member, { maxKeys: 14 });

test('values: the compiled check passes exactly the records objectProblems finds nothing in, whatever is asked', () => {
  fc.assert(fc.property(record, fc.boolean(), fc.boolean(), fc.boolean(), (value, required, undeclared, expand) => {
    const ask = { required, undeclared, ...(expand ? { expanded: new Set(['owner']) } : {}) };
    assert.equal(objectFits(FIELDS, value, ask), objectProblems(FIELDS, value, '', 'thing', false, ask).length === 0, JSON.stringify({ value, ask: { required, undeclared, expand } }));
  }), { numRuns: 5000, seed: 19 });
});
