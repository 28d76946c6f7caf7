/**
 * The event stream through the proxy (src/proxy/parts/stream.ts): judged event by event as it
 * flows, from chunks that split events anywhere. A faithful stream finds nothing; ids that go
 * back, a resume that repeats, an undeclared type, a leaked writeOnly field, a payload beyond
 * its list, data that is not JSON, and another principal's owned record are each found.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { Exchange } from '../../src/conformance/http.ts';
import { Judge } from '../../src/proxy/judge.ts';
import { mustLoad } from '../support/spec.ts';

const SPEC = mustLoad(readFileSync(new URL('../serve/fixtures/tasks-events.yaml', import.meta.url), 'utf8'));
const A = { 'x-api-key': 'key-of-a' };
const B = { 'x-api-key': 'key-of-b' };

function exchange(method: string, url: string, headers: Record<string, string>, status: number, body?: unknown, type = 'application/json'): Exchange {
  return { request: { method, url, headers, ...(method === 'POST' ? { body: JSON.stringify({ title: 'x' }) } : {}) }, response: { status, headers: { 'content-type': type }, text: body === undefined ? '' : JSON.stringify(body), json: body }, ms: 1 };
}

/** A judge that saw A create task 1 and B create task 2, and a stream opened by `who`. */
function open(who: Record<string, string>, extra: Record<string, string> = {}) {
  const judge = new Judge(SPEC);
  judge.judge(exchange('POST', '/tasks', { ...A, 'content-type': 'application/json' }, 201, { id: 1, title: 'x', status: 'open' }));
  judge.judge(exchange('POST', '/tasks', { ...B, 'content-type': 'application/json' }, 201, { id: 2, title: 'x', status: 'open' }));
  const head = exchange('GET', '/events', { ...who, ...extra }, 200, undefined, 'text/event-stream');
  const feed = judge.stream(judge.arrive(head.request), head);
  assert.ok(feed, 'the stream path answered 200 text/event-stream is watched');
  return (text: string) => {
    // Split anywhere, as TCP may: a byte at a time through a multi-byte character too.
    const bytes = Buffer.from(text);
    return [...bytes].flatMap((_, i) => feed(bytes.subarray(i, i + 1)));
  };
}

const ev = (id: string, type: string, data: unknown) => `id: ${id}\nevent: ${type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

test('stream: a faithful stream of the principal\'s own records finds nothing (comments, retry and heartbeats included)', () => {
  const feed = open(A);
  assert.deepEqual(feed(`retry: 3000\n\n${ev('evt_1', 'task.created', { id: 1, title: 'x', status: 'open' })}: heartbeat\n\n${ev('evt_3', 'task.finished', { id: 1, title: 'x — é', status: 'done' })}${ev('evt_4', 'task.deleted', { id: 1 })}`), []);
});

test('stream: each breach is found once, by its kind, with the rule it broke', () => {
  const kinds = (text: string, who = A, extra: Record<string, string> = {}) => open(who, extra)(text).map((f) => f.id);
  assert.deepEqual(kinds(ev('evt_2', 'task.deleted', { id: 1 }) + ev('evt_2', 'task.deleted', { id: 1 })), ['stream-order']);
  assert.deepEqual(kinds(ev('evt_5', 'task.deleted', { id: 1 }), A, { 'last-event-id': 'evt_7' }), ['stream-resume']);
  assert.deepEqual(kinds(ev('12', 'task.deleted', { id: 1 })), ['stream-id']);
  assert.deepEqual(kinds(ev('evt_1', 'task.vanished', { id: 1 })), ['stream-type-undeclared']);
  assert.deepEqual(kinds(ev('evt_1', 'task.created', { id: 1, title: 'x', pin: '1234' })), ['stream-payload']);
  assert.deepEqual(kinds(ev('evt_1', 'task.finished', { id: 1, title: 'x', status: 'done', note: 'n' })), ['stream-payload']);
  assert.deepEqual(kinds(ev('evt_1', 'task.deleted', '{"id": 1')), ['stream-payload']);
  assert.deepEqual(kinds(ev('evt_1', 'task.deleted', { id: 2 })), ['stream-visibility'], "B's task on A's stream");
  const [finding] = open(A)(ev('evt_1', 'task.created', { id: 1, title: 'x', pin: '1234' }));
  assert.match(finding?.message ?? '', /leaks the writeOnly field 'pin'/);
  assert.equal(finding?.rule.location?.line, 46, 'the event of the catalog, at its line');
  assert.equal(finding?.endpoint, 'events.stream');
});

test('stream: only the stream is watched: another path, another status, another type are not', () => {
  const judge = new Judge(SPEC);
  for (const head of [exchange('GET', '/tasks', A, 200), exchange('GET', '/events', A, 401, { code: 'unauthenticated' }), exchange('GET', '/events', A, 200, undefined, 'application/json')]) {
    assert.equal(judge.stream(judge.arrive(head.request), head), undefined, `${head.request.url} ${head.response.status}`);
  }
});
