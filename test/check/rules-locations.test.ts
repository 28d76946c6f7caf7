/** Findings point at file:line:column: at the value, or at the key when the key is the problem. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RULES } from '../../src/check/rules/index.ts';
import { runRules } from '../../src/check/walk.ts';
import { mustLoad } from '../support/spec.ts';

const TEXT = `svcspec: 1
resources:
  book:
    plural: books
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, readOnly: true}
      isbn: {type: string, pattern: '^[0-9+$'}
      status: {type: string, enum: [draft], readOnly: true}
  author:
    fields:
      name: string
states:
  boook:
    field: status
    states: [draft]
    initial: draft
    transitions:
      publish: {from: draft, to: draft}
endpoints:
  book: [read, lst]
  author:
    reed: {}
`;

/** The line and column of a piece of text on a line of TEXT. */
function at(line: number, text: string): { line: number; column: number } {
  const column = TEXT.split('\n')[line - 1].indexOf(text) + 1;
  assert.ok(column > 0, `'${text}' is not on line ${line}`);
  return { line, column };
}

const found = runRules(mustLoad(TEXT), RULES);

function where(code: string): { line?: number; column?: number } {
  const d = found.find((x) => x.code === code);
  assert.ok(d, `${code} not reported: ${found.map((x) => x.code).join(', ')}`);
  return { line: d.location?.line, column: d.location?.column };
}

test('a broken value: where the value stands', () => {
  assert.deepEqual(where('field-pattern-invalid'), at(8, "'^[0-9+$'"));
});

test('an unknown name used as a key: the key', () => {
  assert.deepEqual(where('state-resource-unknown'), at(14, 'boook'));
});

test('something missing from a node: the key of the node', () => {
  assert.deepEqual(where('resource-id-missing'), at(10, 'author'));
});

test('an unknown operation: the list item in the short form, the key in the explicit form', () => {
  const lines = found.filter((d) => d.code === 'endpoint-unknown-operation').map((d) => ({ line: d.location?.line, column: d.location?.column }));
  assert.deepEqual(lines, [at(21, 'lst'), at(23, 'reed')]);
});

test('a list filter on an unknown field: its key, the name that is wrong, not the operators', () => {
  const text = `svcspec: 1
resources:
  talk:
    plural: talks
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, readOnly: true}
      title: string
      durationMinutes: integer
endpoints:
  talk:
    list:
      query:
        filters:
          titel: [prefix, contains]
        sort: [duration]
`;
  const ds = runRules(mustLoad(text), RULES).filter((d) => d.code === 'list-query-field-unknown');
  const filter = ds.find((d) => /titel/.test(d.message));
  assert.deepEqual({ line: filter?.location?.line, column: filter?.location?.column }, { line: 15, column: 11 });
  // A name cut short from its end is suggested too: duration for durationMinutes.
  assert.match(ds.find((d) => /'duration'/.test(d.message))?.message ?? '', /Did you mean 'durationMinutes'\?/);
});
