/**
 * Domain rules (#14): uniqueness, rules over a record, managed fields, guards, counts,
 * effects, ref deletion and bound error codes. A row per finding and near misses that must
 * stay silent; then the places of findings inside CEL expressions, to the column.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RULES } from '../../src/check/rules/index.ts';
import { runRules } from '../../src/check/walk.ts';
import { mustLoad } from '../support/spec.ts';
import { table, type Patch } from './table.ts';

const task = (patch: Patch) => ({ resources: { task: patch } });
const taskFields = (fields: Patch) => task({ fields });
const finish = (patch: Patch) => ({ states: { task: { transitions: { finish: patch } } } });
const T = '/resources/task';
const FIN = '/states/task/transitions/finish';

table('expression-syntax', [
  { name: 'a rule that stops short', patch: task({ rules: [{ rule: 'self.priority >', error: 'validation-failed' }] }), expect: [`expression-syntax ${T}/rules/0/rule`], messages: [/rule 1 of 'task' does not parse/] },
]);

table('expression-unknown-name', [
  { name: 'a misspelt field of self', patch: task({ rules: [{ rule: 'self.priorty > 0', error: 'validation-failed' }] }), expect: [`expression-unknown-name ${T}/rules/0/rule`], messages: [/Rule 1 of 'task' reads 'self.priorty', but 'task' has no field of that name\. Did you mean 'priority'\?/] },
  { name: 'a field of the record a ref points to', patch: finish({ guards: [{ rule: 'refs.project.nme != ""', error: 'invalid-transition' }] }), expect: [`expression-unknown-name ${FIN}/guards/0/rule`], messages: [/reads 'refs.project.nme', but 'project' \(refs.project\) has no field of that name\. Did you mean 'name'\?/] },
  { name: 'a variable a record rule does not have', patch: task({ rules: [{ rule: 'request.note != ""', error: 'validation-failed' }] }), expect: [`expression-unknown-name ${T}/rules/0/rule`], messages: [/'request', but it is not a variable here \(variables: self, now\)/] },
  { name: 'a count that is not declared', patch: finish({ counts: { open: { resource: 'task', where: { status: ['open'] } } }, guards: [{ rule: 'count.opne < 3', error: 'invalid-transition' }] }), expect: [`expression-unknown-name ${FIN}/guards/0/rule`], messages: [/no count of that name is declared here \(counts: open\)\. Did you mean 'open'\?/] },
  { name: 'a misspelt field inside has(), which CEL does not check', patch: task({ rules: [{ rule: '!has(self.nte) || self.priority > 1', error: 'validation-failed' }] }), expect: [`expression-unknown-name ${T}/rules/0/rule`], messages: [/reads 'self.nte', but 'task' has no field of that name\. Did you mean 'note'\?/] },
  { name: 'a guard reading every variable it has', patch: finish({ counts: { open: { resource: 'task', where: { project: 'self.project', status: ['open'] } } }, guards: [{ rule: 'count.open < 3 && principal.id != "" && old.status == "open" && request.note != "" && now > timestamp("2020-01-01T00:00:00Z") && refs.project.budget >= 0.0', error: 'invalid-transition' }] }), expect: [] },
]);

table('expression-type-error', [
  { name: 'an int compared with text', patch: task({ rules: [{ rule: 'self.priority < "3"', error: 'validation-failed' }] }), expect: [`expression-type-error ${T}/rules/0/rule`], messages: [/no such overload: int < string/] },
  { name: 'a date is text, not a timestamp', patch: task({ rules: [{ rule: 'self.dueOn > now', error: 'validation-failed' }] }), expect: [`expression-type-error ${T}/rules/0/rule`] },
]);

table('expression-wrong-type', [
  { name: 'a rule that is not a condition', patch: task({ rules: [{ rule: 'self.priority + 1', error: 'validation-failed' }] }), expect: [`expression-wrong-type ${T}/rules/0/rule`], messages: [/Rule 1 of 'task' gives int, but a bool \(true: it holds\) is needed/] },
  { name: 'a managed value of another type than its field', patch: taskFields({ label: { type: 'string', readOnly: true, managed: { expr: 'self.priority' } } }), expect: [`expression-wrong-type ${T}/fields/label/managed/expr`], messages: [/gives int, but string \(the type of 'task.label'\) is needed/] },
  { name: 'an int into a number field fits', patch: { resources: { project: { fields: { score: { type: 'number', readOnly: true, managed: { expr: 'size(self.name)' } } } } } }, expect: [] },
  { name: 'an effect setting a time stamp', patch: { ...taskFields({ doneAt: { type: 'string', format: 'date-time', readOnly: true } }), ...finish({ effects: [{ set: { doneAt: 'now' } }] }) }, expect: [] },
]);

table('domain-error-undeclared', [
  { name: 'a rule bound to a code not in the catalog', patch: task({ rules: [{ rule: 'self.priority > 0', error: 'bad-priority' }] }), expect: [`domain-error-undeclared ${T}/rules/0/error`] },
  { name: 'a guard bound to a misspelt code', patch: finish({ guards: [{ rule: 'self.priority > 0', error: 'invalid-transiton' }] }), expect: [`domain-error-undeclared ${FIN}/guards/0/error`], messages: [/Did you mean 'invalid-transition'\?/] },
  { name: 'a uniqueness and a refused delete', patch: task({ unique: [{ fields: ['title'], error: 'title-taken' }], fields: { project: { onDelete: { refuse: 'project-in-use' }, nullable: undefined } } }), expect: [`domain-error-undeclared ${T}/unique/0/error`, `domain-error-undeclared ${T}/fields/project/onDelete/refuse`] },
]);

table('unique-field-unknown', [
  { name: 'a field that does not exist', patch: task({ unique: [{ fields: ['titel'], error: 'validation-failed' }] }), expect: [`unique-field-unknown ${T}/unique/0/fields/0`], messages: [/Did you mean 'title'\?/] },
  { name: 'a condition on a field that does not exist', patch: task({ unique: [{ fields: ['title'], where: { stat: ['open'] }, error: 'validation-failed' }] }), expect: [`unique-field-unknown ${T}/unique/0/where/stat`] },
  { name: 'the id and fields together, among open tasks', patch: task({ unique: [{ fields: ['title', 'project'], where: { status: ['open'] }, ignoreCase: true, error: 'validation-failed' }] }), expect: [] },
]);

table('unique-field-not-scalar', [
  { name: 'an array has no one value', patch: task({ unique: [{ fields: ['tags'], error: 'validation-failed' }] }), expect: [`unique-field-not-scalar ${T}/unique/0/fields/0`] },
]);

table('rule-field-unknown', [
  { name: 'a violation pointed at no field', patch: task({ rules: [{ rule: 'self.priority > 0', error: 'validation-failed', field: 'prio' }] }), expect: [`rule-field-unknown ${T}/rules/0/field`] },
]);

table('count-resource-unknown', [
  { name: 'counting records of no resource', patch: finish({ counts: { open: { resource: 'tsk' } } }), expect: [`count-resource-unknown ${FIN}/counts/open/resource`], messages: [/Did you mean 'task'\?/] },
]);

table('count-field-unknown', [
  { name: 'a condition on no field', patch: finish({ counts: { open: { resource: 'task', where: { stat: ['open'] } } } }), expect: [`count-field-unknown ${FIN}/counts/open/where/stat`] },
]);

table('effect-ref-unknown', [
  { name: 'a ref that is not a ref field', patch: finish({ effects: [{ ref: 'title', set: { name: '"x"' } }] }), expect: [`effect-ref-unknown ${FIN}/effects/0/ref`] },
]);

table('effect-field-unknown', [
  { name: 'setting a field the record does not have', patch: finish({ effects: [{ set: { nte: '"x"' } }] }), expect: [`effect-field-unknown ${FIN}/effects/0/set/nte`], messages: [/Did you mean 'note'\?/] },
  { name: 'incrementing a field of the related record it does not have', patch: finish({ effects: [{ ref: 'project', increment: { budgt: 1 } }] }), expect: [`effect-field-unknown ${FIN}/effects/0/increment/budgt`] },
]);

table('effect-increment-not-number', [
  { name: 'incrementing text', patch: finish({ effects: [{ increment: { note: 1 } }] }), expect: [`effect-increment-not-number ${FIN}/effects/0/increment/note`] },
]);

table('guard-each-not-array', [
  { name: 'each item of a field that does not exist', patch: task({ onUpdate: { guards: [{ each: 'tgs', rule: 'true', error: 'validation-failed' }] } }), expect: [`guard-each-not-array ${T}/onUpdate/guards/0/each`], messages: [/not a field of 'task'\. Did you mean 'tags'\?/] },
  { name: 'each item of an array of text', patch: finish({ guards: [{ each: 'tags', rule: 'true', error: 'invalid-transition' }] }), expect: [`guard-each-not-array ${FIN}/guards/0/each`], messages: [/an array whose items are not objects/] },
  { name: 'each part of an order-like array, reading the item and the record its ref points to', patch: task({ fields: { parts: { type: 'array', items: { type: 'object', properties: { project: { type: 'ref', resource: 'project' }, qty: { type: 'integer' } } } } }, onCreate: { guards: [{ each: 'parts', rule: 'item.qty <= 3 && itemRefs.project.budget >= 0.0', error: 'validation-failed' }] } }), expect: [] },
  { name: 'item is no variable of a guard without each', patch: task({ onUpdate: { guards: [{ rule: 'item.qty > 0', error: 'validation-failed' }] } }), expect: ['expression-unknown-name /resources/task/onUpdate/guards/0/rule'] },
]);

table('effect-sets-state-field', [
  { name: 'an effect that moves the record to another state', patch: finish({ effects: [{ set: { status: '"archived"' } }] }), expect: [`effect-sets-state-field ${FIN}/effects/0/set/status`] },
  { name: 'an effect on the state of a related record', patch: { ...task({ fields: { parent: { type: 'ref', resource: 'task' } } }), ...finish({ effects: [{ ref: 'parent', set: { status: '"done"' } }] }) }, expect: [`effect-sets-state-field ${FIN}/effects/0/set/status`] },
]);

table('effect-changes-client-field', [
  { name: 'an effect on a field clients also write', patch: finish({ effects: [{ ref: 'project', increment: { budget: 1 } }] }), expect: [`effect-changes-client-field ${FIN}/effects/0/increment/budget`] },
  { name: 'an effect on a read-only counter', patch: { resources: { project: { fields: { done: { type: 'integer', readOnly: true, default: 0 } } } }, ...finish({ effects: [{ ref: 'project', increment: { done: 1 } }] }) }, expect: [] },
]);

table('ref-nullify-not-nullable', [
  { name: 'nullify on a ref that cannot be null', patch: taskFields({ project: { nullable: undefined } }), expect: [`ref-nullify-not-nullable ${T}/fields/project/onDelete`], messages: [/but it is not nullable/] },
  { name: 'nullify on a required ref', patch: taskFields({ project: { required: true } }), expect: [`ref-nullify-not-nullable ${T}/fields/project/onDelete`], messages: [/but it is required/] },
]);

table('managed-sequence-pattern-mismatch', [
  { name: 'a number narrower than the pattern', patch: taskFields({ code: { type: 'string', pattern: '^T-[0-9]{4}$', readOnly: true, managed: { sequence: 'T-{n:3}' } } }), expect: [`managed-sequence-pattern-mismatch ${T}/fields/code/managed/sequence`], messages: [/first value 'T-001' does not match/] },
  { name: 'a template the pattern takes', patch: taskFields({ code: { type: 'string', pattern: '^T-[0-9]{4,}$', readOnly: true, managed: { sequence: 'T-{n:4}' } } }), expect: [] },
]);

table('managed-field-writable', [
  { name: 'a time stamp clients may send', patch: taskFields({ stamp: { type: 'string', format: 'date-time', managed: 'created-at' } }), expect: [`managed-field-writable ${T}/fields/stamp/managed`] },
]);

table('field-readonly-unset', [
  { name: 'a read-only field nothing sets', patch: taskFields({ seen: { type: 'string', format: 'date-time', readOnly: true } }), expect: [`field-readonly-unset ${T}/fields/seen`], messages: [/'task.seen' is read-only and nothing sets it: it stays absent/] },
  { name: 'one a managed source sets', patch: taskFields({ seen: { type: 'string', format: 'date-time', readOnly: true, managed: 'updated-at' } }), expect: [] },
  { name: 'one an effect sets', patch: { ...taskFields({ seen: { type: 'string', format: 'date-time', readOnly: true } }), ...finish({ effects: [{ set: { seen: 'now' } }] }) }, expect: [] },
]);

table('ref-on-delete-silent', [
  { name: 'a ref to a record that can be deleted, with no onDelete', patch: taskFields({ project: { onDelete: undefined } }), expect: [`ref-on-delete-silent ${T}/fields/project`], messages: [/silent on what deleting a 'project' does to the 'task' records that refer to it \('project'\)/] },
  { name: 'a ref to records nothing deletes', patch: { ...taskFields({ project: { onDelete: undefined } }), endpoints: { project: ['create', 'read', 'update', 'list'] }, authentication: { require: { 'project.delete': undefined } } }, expect: [] },
]);

table('error-code-unbound', [
  { name: 'a code nothing raises', patch: { errors: { catalog: { 'too-late': { status: 409, title: 'Too late' } } } }, expect: ['error-code-unbound /errors/catalog/too-late'], messages: [/the reference can never produce it and the tester can never provoke it/] },
  { name: 'one the implementation raises', patch: { errors: { catalog: { 'too-late': { status: 409, title: 'Too late', raisedBy: 'implementation' } } } }, expect: [] },
  { name: 'one a guard raises', patch: { errors: { catalog: { 'too-late': { status: 409, title: 'Too late' } } }, ...finish({ guards: [{ rule: 'self.priority > 1', error: 'too-late' }] }) }, expect: [] },
  { name: 'one mapped to a situation', patch: { errors: { catalog: { gone: { status: 404, title: 'Gone', for: 'not-found' } } } }, expect: [] },
]);

// ---- places inside expressions ------------------------------------------------------

const TEXT = `svcspec: 1
resources:
  slot:
    plural: slots
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, readOnly: true}
      start: {type: string, format: date-time, required: true}
      end: {type: string, format: date-time, required: true}
      seats: {type: integer}
    rules:
      - rule: self.end > self.strat
        error: validation-failed
      - {rule: 'self.seats > ''many''', error: validation-failed}
      - {rule: "self.seats > 0 && self.ned > self.start", error: validation-failed}
      - rule: |
          has(self.seats) &&
            self.seets > 1
        error: validation-failed
      - rule: >-
          self.seats > 0 &&
          self.strt > now
        error: validation-failed
      - {rule: "self.seats > \\"a\\" || self.edn", error: validation-failed}
errors:
  catalog:
    validation-failed: {status: 422, title: Validation failed}
`;

/** The line and column of a piece of text on a line of TEXT, plus `skip` characters. */
function at(line: number, text: string, skip = 0): string {
  const column = TEXT.split('\n')[line - 1].indexOf(text) + 1;
  assert.ok(column > 0, `'${text}' is not on line ${line}`);
  return `${line}:${column + skip}`;
}

const found = runRules(mustLoad(TEXT), RULES).filter((d) => d.code.startsWith('expression-'));
const place = (pointer: string) => {
  const d = found.find((x) => x.pointer === pointer);
  assert.ok(d, `nothing at ${pointer}: ${found.map((x) => `${x.pointer} ${x.message}`).join('\n')}`);
  return `${d.location?.line}:${d.location?.column}`;
};

test('a plain scalar: the column of the unknown field', () => {
  assert.equal(place('/resources/slot/rules/0/rule'), at(12, 'self.strat', 5));
});

test("a single-quoted scalar: after the quote, with '' read as one character", () => {
  // The type error spans the whole comparison: it starts at `self`.
  assert.equal(place('/resources/slot/rules/1/rule'), at(14, "self.seats > ''many''"));
});

test('a double-quoted scalar: after the quote', () => {
  assert.equal(place('/resources/slot/rules/2/rule'), at(15, 'self.ned', 5));
});

test('a literal block: on its line, past the indentation', () => {
  assert.equal(place('/resources/slot/rules/3/rule'), at(18, 'self.seets', 5));
});

test('a folded block: on its second line', () => {
  assert.equal(place('/resources/slot/rules/4/rule'), at(22, 'self.strt', 5));
});

test('a double-quoted scalar with escapes: past them', () => {
  const d = found.find((x) => x.pointer === '/resources/slot/rules/5/rule');
  assert.ok(d);
  // The first error cel-js names is the comparison of an int with a string, at `self`.
  assert.equal(`${d.location?.line}:${d.location?.column}`, at(24, 'self.seats'));
});

test('the messages say it in our words', () => {
  assert.match(found.find((x) => x.pointer === '/resources/slot/rules/0/rule')?.message ?? '', /Rule 1 of 'slot' reads 'self.strat', but 'slot' has no field of that name\. Did you mean 'start'\?/);
});

test('in a JSON spec and in a Markdown yaml block too: the column inside the expression', () => {
  const json = JSON.stringify({ svcspec: 1, resources: { slot: { id: { field: 'id', assigned: 'uuid' }, fields: { id: { type: 'string', readOnly: true }, start: { type: 'string' } }, rules: [{ rule: 'self.strat != ""', error: 'x' }] } } }, null, 1);
  const inJson = runRules(mustLoad(json, 'json'), RULES).find((d) => d.code === 'expression-unknown-name');
  const line = json.split('\n').findIndex((l) => l.includes('self.strat')) + 1;
  assert.deepEqual([inJson?.location?.line, inJson?.location?.column], [line, json.split('\n')[line - 1].indexOf('strat') + 1]);
  const md = '# T\n\n```yaml\nsvcspec: 1\n```\n\n## Resources and their fields\n\n```yaml\nslot:\n  id: {field: id, assigned: uuid}\n  fields:\n    id: {type: string, readOnly: true}\n    start: {type: string}\n  rules:\n    - {rule: "self.strat != \'\'", error: x}\n```\n';
  const inMd = runRules(mustLoad(md, 'markdown'), RULES).find((d) => d.code === 'expression-unknown-name');
  const mdLine = md.split('\n').findIndex((l) => l.includes('self.strat')) + 1;
  assert.deepEqual([inMd?.location?.line, inMd?.location?.column], [mdLine, md.split('\n')[mdLine - 1].indexOf('strat') + 1]);
});
