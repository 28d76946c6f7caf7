/** toDocument: the Spec back to the format, writing only what differs from the conventions. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { loadSpecText } from '../../src/load/index.ts';
import { partContent, toDocument } from '../../src/spec/serialize.ts';
import { mustLoad } from '../support/spec.ts';
import { examples, withoutSource } from './helpers.ts';

test('every example: toDocument loads back into the same Spec', async () => {
  for (const example of await examples()) {
    if (!example.spec) continue;
    const back = loadSpecText(stringify(toDocument(example.spec)), { file: 'x.yaml', kind: 'yaml' });
    assert.deepEqual(back.diagnostics, [], example.name);
    assert.deepStrictEqual(withoutSource(back.value), withoutSource(example.spec), example.name);
  }
});

test('gaps are left out, none is written with its reason, order is the nine-part order', () => {
  const spec = mustLoad('svcspec: 1\ntitle: T\nerrors: {shape: problem}\nevents: {none: No events.}\n');
  assert.deepEqual(toDocument(spec), { svcspec: 1, title: 'T', events: { none: 'No events.' }, errors: { shape: 'problem' } });
  assert.equal(partContent(spec, 'limits'), undefined);
});

test('endpoints: short form stays short; conventional method, path, request and responses are not written', () => {
  const spec = mustLoad([
    'svcspec: 1',
    'resources: {loan: {plural: loans, fields: {due: string, status: {type: string, enum: [a, b]}}}}',
    'states: {loan: {field: status, initial: a, transitions: {go: {from: a, to: b, requires: [due]}}}}',
    'endpoints:',
    '  loan:',
    '    create: {method: POST, path: /loans, request: resource, responses: {201: resource}}',
    '    go: {method: POST, path: "/loans/{id}/go", request: [due]}',
    '    read: {path: "/loans/{id}/detail"}',
  ].join('\n'));
  assert.deepEqual(partContent(spec, 'endpoints'), { loan: { create: {}, go: {}, read: { path: '/loans/{id}/detail' } } });
  assert.deepEqual(partContent(mustLoad('svcspec: 1\nendpoints: {loan: [create, read]}\n'), 'endpoints'), { loan: ['create', 'read'] });
});

test('conventions elsewhere: plural, implied states, inherited scope, default parameters; units written back', () => {
  const spec = mustLoad([
    'svcspec: 1',
    'resources: {order: {plural: order, fields: {state: {type: string, enum: [open, shut]}}}}',
    'states: {order: {field: state, states: [open, shut], initial: open}}',
    'limits:',
    '  rate: {limit: 10, window: 90s, scope: address, overrides: {order.read: {limit: 2, window: 60000ms, scope: address}}}',
    '  body: {maxSize: 65536}',
    '  pagination: {style: offset, defaultSize: 5, maxSize: 9, overMax: clamp, params: {size: limit, position: offset}}',
  ].join('\n'));
  assert.deepEqual(partContent(spec, 'resources'), { order: { fields: { state: { type: 'string', enum: ['open', 'shut'] } } } });
  assert.deepEqual(partContent(spec, 'states'), { order: { field: 'state', initial: 'open' } });
  assert.deepEqual(partContent(spec, 'limits'), {
    rate: { limit: 10, window: '90s', scope: 'address', overrides: { 'order.read': { limit: 2, window: '1m' } } },
    body: { maxSize: '64KiB' },
    pagination: { style: 'offset', defaultSize: 5, maxSize: 9, overMax: 'clamp' },
  });
});

test('a stated part whose content normalizes to nothing stays stated', () => {
  const spec = mustLoad('svcspec: 1\npurpose: {users: []}\nevents: {catalog: {}}\n');
  assert.equal(spec.parts.purpose.statement, 'given');
  assert.deepEqual(partContent(spec, 'purpose'), { users: [] });
  assert.deepEqual(partContent(spec, 'events'), { catalog: {} });
});

test('readOnlyFields and unknownFields other than refuse are written back; refuse, the default, is not', () => {
  for (const readOnlyFields of ['ignore', 'either'] as const) {
    const spec = mustLoad(`svcspec: 1\nresources: {note: {readOnlyFields: ${readOnlyFields}, unknownFields: ignore, fields: {text: string}}}\n`);
    assert.equal(spec.resources[0]!.readOnlyFields, readOnlyFields);
    const written = (partContent(spec, 'resources') as Record<string, Record<string, unknown>>).note!;
    assert.deepEqual([written.readOnlyFields, written.unknownFields], [readOnlyFields, 'ignore']);
  }
  const plain = (partContent(mustLoad('svcspec: 1\nresources: {note: {fields: {text: string}}}\n'), 'resources') as Record<string, Record<string, unknown>>).note!;
  assert.deepEqual([plain.readOnlyFields, plain.unknownFields], [undefined, undefined]);
});
