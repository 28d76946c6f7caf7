/** Rules of part 2, resources: a row per finding, and near misses that must stay silent. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RULES } from '../../src/check/rules/index.ts';
import { runRules } from '../../src/check/walk.ts';
import { load } from '../support/spec.ts';
import { specText, summary, table } from './table.ts';

const task = (fields: Record<string, unknown>) => ({ resources: { task: { fields } } });
const project = (value: Record<string, unknown>) => ({ resources: { project: value } });
const F = '/resources/task/fields';

table('field-ref-missing-resource', [
  { name: 'a ref field without resource', patch: task({ project: { resource: undefined } }), expect: [`field-ref-missing-resource ${F}/project`] },
  { name: 'array items of refs without resource', patch: task({ related: { items: { resource: undefined } } }), expect: [`field-ref-missing-resource ${F}/related/items`] },
]);

table('field-ref-unknown-resource', [
  {
    name: 'a ref to an undeclared resource, with a suggestion',
    patch: task({ project: { resource: 'projet' } }),
    expect: [`field-ref-unknown-resource ${F}/project/resource`],
    messages: [/'project' of 'task' refers to resource 'projet'.*Did you mean 'project'\?/],
  },
  { name: 'array items referring to an undeclared resource', patch: task({ related: { items: { resource: 'nothing' } } }), expect: [`field-ref-unknown-resource ${F}/related/items/resource`] },
]);

table('resource-id-missing', [
  { name: 'a resource without id', patch: project({ id: undefined }), expect: ['resource-id-missing /resources/project'] },
]);

table('resource-id-field-unknown', [
  {
    name: 'id.field names no field',
    patch: project({ id: { field: 'ID' } }),
    // Its field 'id' is then no longer the id: read-only, and nothing fills it.
    expect: ['resource-id-field-unknown /resources/project/id/field', 'field-readonly-unset /resources/project/fields/id'],
    messages: [/field 'ID', which is not one of its fields \('id', 'name', 'budget'\)\. Did you mean 'id'\?/],
  },
]);

table('resource-id-type-mismatch', [
  { name: 'sequence ids in a text field', patch: task({ id: { type: 'string', minimum: undefined } }), expect: [`resource-id-type-mismatch ${F}/id/type`], messages: [/'sequence', which gives whole numbers, but its field 'id' is text/] },
  { name: 'uuid ids in a number field', patch: project({ fields: { id: { type: 'integer', format: undefined } } }), expect: ['resource-id-type-mismatch /resources/project/fields/id/type'] },
  { name: 'client ids may be whole numbers', patch: { resources: { task: { id: { assigned: 'client' }, fields: { id: { readOnly: undefined } } } } }, expect: [] },
]);

table('resource-id-not-readonly', [
  { name: 'a service-assigned id clients seem to send', patch: project({ fields: { id: { readOnly: undefined } } }), expect: ['resource-id-not-readonly /resources/project/fields/id'] },
  { name: 'a client-assigned id is writable', patch: project({ id: { assigned: 'client' }, fields: { id: { readOnly: undefined } } }), expect: [] },
]);

table('resource-id-client-readonly', [
  { name: 'a client-assigned id that clients may not send', patch: project({ id: { assigned: 'client' } }), expect: ['resource-id-client-readonly /resources/project/fields/id/readOnly'] },
]);

const note = { id: { field: 'id', assigned: 'uuid' }, fields: { id: { type: 'string', readOnly: true } } };
table('resource-plural-duplicate', [
  { name: 'a written plural used twice', patch: { resources: { note: { plural: 'tasks', ...note } } }, expect: ['resource-plural-duplicate /resources/note/plural'], messages: [/'task' and 'note' share the plural 'tasks'/] },
  { name: 'a plural taken from the name', patch: { resources: { projects: note } }, expect: ['resource-plural-duplicate /resources/projects'] },
]);

table('resource-name-case-duplicate', [
  { name: 'two names differing only in case', patch: { resources: { Task: { plural: 'other-tasks', ...note } } }, expect: ['resource-name-case-duplicate /resources/Task'], messages: [/'task' and 'Task' differ only in letter case/] },
  { name: 'distinct names', patch: { resources: { taskList: { plural: 'task-lists', ...note } } }, expect: [] },
]);

table('resource-without-fields', [
  { name: 'a resource with no fields', patch: { resources: { tag: { plural: 'tags', description: 'A label.' } } }, expect: ['resource-without-fields /resources/tag', 'resource-id-missing /resources/tag'] },
]);

table('field-required-readonly', [
  { name: 'a required readOnly field', patch: task({ title: { readOnly: true } }), expect: [`field-required-readonly ${F}/title/required`, `field-readonly-unset ${F}/title`] },
  { name: 'a nested one', patch: task({ details: { properties: { size: { required: true, readOnly: true } } } }), expect: [`field-required-readonly ${F}/details/properties/size/required`] },
]);

table('field-readonly-writeonly', [
  { name: 'a field both readOnly and writeOnly', patch: task({ secret: { readOnly: true } }), expect: [`field-readonly-writeonly ${F}/secret/writeOnly`, `field-readonly-unset ${F}/secret`] },
]);

table('field-required-with-default', [
  { name: 'a required field with a default', patch: task({ priority: { required: true } }), expect: [`field-required-with-default ${F}/priority/default`], messages: [/default 3, which never applies/] },
]);

table('field-range-inverted', [
  { name: 'minimum above maximum (and the default below it)', patch: task({ priority: { minimum: 6 } }), expect: [`field-range-inverted ${F}/priority/minimum`, `field-default-invalid ${F}/priority/default`], messages: [/minimum 6 above maximum 5/] },
  { name: 'minLength above maxLength', patch: task({ title: { minLength: 300 } }), expect: [`field-range-inverted ${F}/title/minLength`] },
  { name: 'minItems above maxItems', patch: task({ tags: { minItems: 11, default: undefined } }), expect: [`field-range-inverted ${F}/tags/minItems`] },
  { name: 'equal exclusive bounds', patch: project({ fields: { budget: { exclusiveMinimum: 5, exclusiveMaximum: 5, default: undefined } } }), expect: ['field-range-inverted /resources/project/fields/budget/exclusiveMinimum'], messages: [/exclusiveMinimum 5 not below exclusiveMaximum 5/] },
  { name: 'minimum at an exclusive maximum', patch: project({ fields: { budget: { exclusiveMaximum: 0, default: undefined } } }), expect: ['field-range-inverted /resources/project/fields/budget/minimum'] },
  { name: 'on array items', patch: task({ tags: { items: { minLength: 5, maxLength: 2 } } }), expect: [`field-range-inverted ${F}/tags/items/minLength`] },
  { name: 'equal inclusive bounds leave one value', patch: task({ priority: { minimum: 3, maximum: 3 } }), expect: [] },
]);

table('field-pattern-invalid', [
  { name: 'an unterminated class', patch: task({ tags: { items: { pattern: '^[a-z+$' } } }), expect: [`field-pattern-invalid ${F}/tags/items/pattern`], messages: [/not a valid regular expression: unterminated character class\./] },
  { name: 'an escape the u flag refuses', patch: task({ title: { pattern: '^a\\-b$' } }), expect: [`field-pattern-invalid ${F}/title/pattern`], messages: [/invalid escape/] },
  { name: 'classes and quantifiers are fine', patch: task({ title: { pattern: '^\\p{Lu}\\d{2,}[-_]?$' } }), expect: [] },
]);

table('field-default-invalid', [
  { name: 'of the wrong type', patch: task({ priority: { default: 'high' } }), expect: [`field-default-invalid ${F}/priority/default`], messages: [/The default of field 'priority' of 'task' \('high'\) does not fit the field: it must be a whole number\./] },
  { name: 'outside the enum', patch: task({ details: { properties: { unit: { default: 'w' } } } }), expect: [`field-default-invalid ${F}/details/properties/unit/default`], messages: [/it must be one of "h", "d"/] },
  { name: 'an item breaking the pattern', patch: task({ tags: { default: ['A'] } }), expect: [`field-default-invalid ${F}/tags/default`], messages: [/'\[0\]' must match the pattern/] },
  { name: 'not of the format', patch: task({ dueOn: { default: 'tomorrow' } }), expect: [`field-default-invalid ${F}/dueOn/default`], messages: [/must be a valid date/] },
  { name: 'too long', patch: task({ note: { maxLength: 3, default: 'abcd' } }), expect: [`field-default-invalid ${F}/note/default`], messages: [/at most 3 characters long/] },
  { name: 'refs hold ids of the referenced resource', patch: task({ related: { default: ['x'] } }), expect: [`field-default-invalid ${F}/related/default`], messages: [/'\[0\]' must be a whole number/] },
  { name: 'a map member out of bounds', patch: task({ details: { default: { size: -1 } } }), expect: [`field-default-invalid ${F}/details/default`], messages: [/'size' must be at least 0/] },
  { name: 'a map member that is no field', patch: task({ details: { default: { colour: 'red' } } }), expect: [`field-default-invalid ${F}/details/default`], messages: [/holds 'colour', which is not one of its fields/] },
  { name: 'null on a nullable field', patch: task({ note: { nullable: true, default: null } }), expect: [] },
  { name: 'a fitting map', patch: task({ details: { default: { size: 2, unit: 'd' } } }), expect: [] },
  // Plain scalars are read without Ajv (default-schema.ts, plainlyFits); its bounds are Ajv's.
  { name: 'scalars at their bounds fit', patch: task({ priority: { default: 5 }, note: { maxLength: 3, default: '😀é😀' } }), expect: [] },
  { name: 'a string too long by one code point', patch: task({ note: { maxLength: 2, default: '😀é😀' } }), expect: [`field-default-invalid ${F}/note/default`], messages: [/at most 2 characters long/] },
  { name: 'a string matching its pattern fits', patch: task({ note: { pattern: '^\\p{Lu}', default: 'Élan' } }), expect: [] },
  { name: 'a string breaking its pattern', patch: task({ note: { pattern: '^\\p{Lu}', default: 'élan' } }), expect: [`field-default-invalid ${F}/note/default`], messages: [/must match the pattern/] },
  // Lists of plain items too, the empty list among them (library.yaml's `books: default: []`, refs with uniqueItems).
  { name: 'an empty list of refs with unique items fits', patch: task({ related: { uniqueItems: true, maxItems: 3, default: [] } }), expect: [] },
  { name: 'a list of plain items at its bounds fits', patch: task({ tags: { minItems: 2, maxItems: 2, uniqueItems: undefined, default: ['a', 'b'] } }), expect: [] },
  { name: 'a list longer than maxItems', patch: task({ tags: { maxItems: 1, uniqueItems: undefined, default: ['a', 'b'] } }), expect: [`field-default-invalid ${F}/tags/default`], messages: [/must hold at most 1 items/] },
  { name: 'a list shorter than minItems', patch: task({ tags: { minItems: 1, default: [] } }), expect: [`field-default-invalid ${F}/tags/default`], messages: [/must hold at least 1 items/] },
  { name: 'a list repeating an item', patch: task({ tags: { default: ['a', 'a'] } }), expect: [`field-default-invalid ${F}/tags/default`], messages: [/must not repeat items/] },
  { name: 'a list that is not a list', patch: task({ tags: { default: 'a' } }), expect: [`field-default-invalid ${F}/tags/default`], messages: [/must be/] },
  { name: 'a number above its exclusive maximum', patch: task({ priority: { maximum: undefined, exclusiveMaximum: 5, default: 5 } }), expect: [`field-default-invalid ${F}/priority/default`], messages: [/must be less than 5/] },
]);

table('field-constraint-mismatch', [
  { name: 'a pattern on a number', patch: task({ priority: { pattern: '^1$' } }), expect: [`field-constraint-mismatch ${F}/priority/pattern`], messages: [/'priority' of 'task' is a whole number, but 'pattern' applies only to text/] },
  { name: 'a minimum on text', patch: task({ title: { minimum: 1 } }), expect: [`field-constraint-mismatch ${F}/title/minimum`] },
  { name: 'items on text', patch: task({ note: { items: { type: 'string' } } }), expect: [`field-constraint-mismatch ${F}/note/items`] },
  { name: 'a resource on text', patch: task({ note: { resource: 'project' } }), expect: [`field-constraint-mismatch ${F}/note/resource`] },
  { name: 'a text format on a number', patch: task({ priority: { format: 'date' } }), expect: [`field-constraint-mismatch ${F}/priority/format`], messages: [/'format: date' applies only to text/] },
  { name: 'a number format on a number', patch: task({ priority: { format: 'int32' } }), expect: [] },
]);

table('field-format-unknown', [
  { name: 'a misspelt format', patch: task({ dueOn: { format: 'dat' } }), expect: [`field-format-unknown ${F}/dueOn/format`], messages: [/format 'dat', which is not a known format\. Did you mean 'date'\?/] },
  { name: 'on array items', patch: task({ tags: { items: { format: 'slug' } } }), expect: [`field-format-unknown ${F}/tags/items/format`] },
]);

table('field-enum-type-mismatch', [
  { name: 'a number among text', patch: task({ details: { properties: { unit: { enum: ['h', 1] } } } }), expect: [`field-enum-type-mismatch ${F}/details/properties/unit/enum/1`], messages: [/allows 1, which is not text/] },
  { name: 'a fraction on a whole-number field', patch: task({ priority: { enum: [1, 2.5, 3] } }), expect: [`field-enum-type-mismatch ${F}/priority/enum/1`] },
  { name: 'null on a field that is not nullable', patch: task({ note: { enum: ['a', null] } }), expect: [`field-enum-type-mismatch ${F}/note/enum/1`] },
  { name: 'null on a nullable field', patch: task({ note: { enum: ['a', null], nullable: true } }), expect: [] },
]);

table('field-enum-duplicate', [
  { name: 'a value listed twice', patch: task({ details: { properties: { unit: { enum: ['h', 'd', 'h'] } } } }), expect: [`field-enum-duplicate ${F}/details/properties/unit/enum/2`] },
]);

table('field-array-without-items', [
  { name: 'a list of anything', patch: task({ tags: { items: undefined } }), expect: [`field-array-without-items ${F}/tags`] },
]);

test('resource-id-missing: an id written without `assigned` is the loader\'s finding, not this one', () => {
  const text = specText({ resources: { project: { id: { assigned: undefined } } } });
  const { spec, diagnostics } = load(text);
  assert.ok(spec);
  assert.ok(diagnostics.some((d) => d.pointer === '/resources/project/id' && d.severity === 'error'), 'the loader reports the missing key');
  assert.deepEqual(runRules(spec, RULES).map(summary), []);
});

table('resource-ownership-invalid', [
  { name: 'one per owner, without owners', patch: { resources: { project: { perOwner: 'one' } } }, expect: ['resource-ownership-invalid /resources/project/perOwner'], messages: [/perOwner: one\), but is not owned: true/] },
  { name: 'visibility through a field that is no ref', patch: { resources: { project: { visibility: { parent: 'name' } } } }, expect: ['resource-ownership-invalid /resources/project/visibility/parent'], messages: [/'name', which is not a ref field/] },
  { name: 'visibility through a parent that is not owned', patch: { resources: { project: { fields: { lead: { type: 'ref', resource: 'project' } }, visibility: { parent: 'lead' } } } }, expect: ['resource-ownership-invalid /resources/project/visibility/parent', 'ref-on-delete-silent /resources/project/fields/lead'], messages: [/project is not owned, so every caller sees it anyway/] },
  { name: 'owned, and following a parent too', patch: { resources: { task: { visibility: { parent: 'related' } } } }, expect: ['resource-ownership-invalid /resources/task/visibility/parent'] },
  { name: 'near miss: one per owner of an owned resource', patch: { resources: { task: { perOwner: 'one' } } }, expect: [] },
]);
