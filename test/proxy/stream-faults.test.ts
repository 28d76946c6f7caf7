/**
 * The event stream through the proxy, over real HTTP: the tester's events part runs through
 * `svcspec proxy` in front of an events service it never saw (test/conformance/fakes), a
 * faithful one and one wrong in each way a stream can show. The faithful one's streams find
 * nothing; each fault is found by its kind, with the rule it broke. Faults the stream cannot
 * show the proxy (only live events after a resume: less, not wrong) stay the tester's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type Principal } from '../../src/conformance/index.ts';
import { startProxy } from '../../src/proxy/index.ts';
import { EVENTS_SPEC, startEventsService, type Faults } from '../conformance/fakes/events-service.ts';
import { mustLoad } from '../support/spec.ts';

const KEYS = { 'ann-key-0001': 'ann', 'bob-key-0002': 'bob', 'carl-key-003': 'carl' };
const PRINCIPALS: Principal[] = [
  { name: 'ann', headers: { 'X-API-Key': 'ann-key-0001' } },
  { name: 'bob', headers: { 'X-API-Key': 'bob-key-0002' } },
  { name: 'carl', headers: { 'X-API-Key': 'carl-key-003' }, scopes: ['tasks'] },
];

async function throughProxy(t: { after: (fn: () => Promise<void>) => void }, faults: Faults = {}) {
  const fake = await startEventsService({ keys: KEYS, scopes: { carl: ['tasks'] }, faults });
  t.after(fake.close);
  const spec = mustLoad(EVENTS_SPEC);
  const proxy = await startProxy({ spec, upstream: fake.baseUrl });
  t.after(() => proxy.close());
  await runConformance({ spec, baseUrl: proxy.url, principals: PRINCIPALS, seed: 11, only: ['events'], events: { timeoutMs: 1500 } });
  return Object.assign(proxy.findings.filter((f) => f.id.startsWith('stream-')), { events: proxy.judge.counts.streamEvents });
}

test('proxy stream: a faithful service\'s streams, every one the tester opens, find nothing', async (t) => {
  const found = await throughProxy(t);
  assert.deepEqual(found.map((f) => `${f.part}/${f.id}: ${f.message}`), []);
  assert.ok(found.events >= 10, `the stream's events passed the proxy and were judged: ${found.events}`);
});

const FAULTS: { name: string; faults: Faults; finding: string; message: RegExp; rule: RegExp }[] = [
  { name: 'replays the whole log whatever Last-Event-ID says', faults: { replayAll: true }, finding: 'events/stream-resume', message: /resumed after evt_\d+ \(Last-Event-ID\) sent evt_\d+, which is not after it/, rule: /^events\.stream: \/events/ },
  { name: 'leaks a writeOnly field in the payload', faults: { leak: 'writeOnly' }, finding: 'events/stream-payload', message: /leaks the writeOnly field 'pin'/, rule: /^task\.created: on task\.created, payload resource$/ },
  { name: 'carries an undeclared field in the payload', faults: { leak: 'extra' }, finding: 'events/stream-payload', message: /carries 'internalNote', which the payload \[id, title, status\] does not list/, rule: /payload \[id, title, status\]$/ },
  { name: "shows one principal another's events", faults: { leakToOthers: true }, finding: 'authentication/stream-visibility', message: /the stream carried task\.\w+ of task \d+ to a principal other than the one that created it/, rule: /^task: owned$/ },
  { name: 'sends an event outside its versions', faults: { ignoreVersions: true }, finding: 'events/stream-version', message: /in version 1, sent task\.reopened, which version 1 does not have/, rule: /^task\.reopened: since 2/ },
];

for (const fault of FAULTS) {
  test(`proxy stream: a service that ${fault.name} is found (${fault.finding})`, async (t) => {
    const found = await throughProxy(t, fault.faults);
    const named = found.filter((f) => `${f.part}/${f.id}` === fault.finding);
    assert.ok(named.length > 0, `no ${fault.finding} among: ${found.map((f) => `${f.part}/${f.id}`).join(', ') || 'nothing'}`);
    const f = named.find((n) => fault.message.test(n.message));
    assert.ok(f, `no ${fault.finding} says ${fault.message}: ${named.map((n) => n.message).slice(0, 3).join('; ')}`);
    assert.match(f.rule.text, fault.rule);
    assert.equal(f.rule.location?.file, 'test.yaml', 'the rule at its place in the spec');
  });
}
