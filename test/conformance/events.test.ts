/**
 * The events part of the tester (part 6) against a small hand-written implementation of the
 * convention (fakes/events-service.ts): everything passes when it follows docs/events.md,
 * and each deliberate fault (unsigned or wrongly signed webhooks, a missing event, a payload
 * leaking a field, a stream that ignores Last-Event-ID, events shown to the wrong principal
 * or the wrong version, a stream deaf to the version asked for, a rotation that drops the old
 * secret at once, a replay under a new webhook-id) is caught and names the rule it breaks. Plus the tester's own
 * receiver and signature check, the latter against the standardwebhooks library.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runConformance, type CheckResult, type ConformanceReport, type EventRunOptions, type Principal } from '../../src/conformance/index.ts';
import { WebhookReceiver } from '../../src/conformance/receiver.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { signatureProblem } from '../../src/conformance/signature.ts';
import { mustLoad } from '../support/spec.ts';
import { EVENTS_SPEC, startEventsService, type FakeOptions, type Faults } from './fakes/events-service.ts';

const KEYS = { 'ann-key-0001': 'ann', 'bob-key-0002': 'bob', 'carl-key-003': 'carl' };
/** ann and bob hold every scope (ownership needs two); carl only `tasks`, so notes are not his to see. */
const PRINCIPALS: Principal[] = [
  { name: 'ann', headers: { 'X-API-Key': 'ann-key-0001' } },
  { name: 'bob', headers: { 'X-API-Key': 'bob-key-0002' } },
  { name: 'carl', headers: { 'X-API-Key': 'carl-key-003' }, scopes: ['tasks'] },
];

async function run(t: { after: (fn: () => Promise<void>) => void }, options: { faults?: Faults; spec?: string; fake?: Partial<FakeOptions>; events?: EventRunOptions } = {}): Promise<ConformanceReport> {
  const fake = await startEventsService({ keys: KEYS, scopes: { carl: ['tasks'] }, ...(options.faults ? { faults: options.faults } : {}), ...options.fake });
  t.after(fake.close);
  const spec = mustLoad(options.spec ?? EVENTS_SPEC);
  return runConformance({ spec, baseUrl: fake.baseUrl, principals: PRINCIPALS, seed: 11, only: ['events'], events: { timeoutMs: 3000, ...options.events } });
}

const byId = (report: ConformanceReport, id: string): CheckResult | undefined => report.results.find((r) => r.id === id);

function passed(report: ConformanceReport, ids: readonly string[]): void {
  assert.equal(report.counts.fail, 0, formatHuman(report));
  for (const id of ids) assert.equal(byId(report, id)?.outcome, 'pass', `${id} did not pass:\n${formatHuman(report)}`);
}

test('events: an implementation that follows the convention passes every check', async (t) => {
  const report = await run(t);
  passed(report, [
    'webhooks.subscribe', 'webhooks.read', 'webhooks.unknown-event', 'webhooks.bad-url', 'stream.opens',
    'task.created.webhook', 'task.created.webhook-signature', 'task.created.stream',
    'task.finished.webhook', 'task.finished.webhook-signature', 'task.finished.stream',
    'stream.resume', 'task.reopened.not-in-version', 'stream.version-2', 'webhooks.other-principal', 'task.visibility',
    'note.added.webhook', 'note.added.stream', 'label.added.webhook', 'label.added.stream', 'visibility.scopes',
    'note.changed.webhook', 'note.changed.stream', 'label.removed.webhook', 'label.removed.stream',
    'webhooks.retry', 'webhooks.rotate-secret', 'webhooks.replay', 'webhooks.gone', 'webhooks.unsubscribe',
  ]);
  assert.equal(report.counts.skip, 0, formatHuman(report));
  const rule = byId(report, 'task.created.webhook')?.rule;
  assert.match(rule?.text ?? '', /^task\.created: on task\.created, payload resource$/);
  assert.deepEqual([rule?.location?.file, rule?.location?.line, rule?.location?.column], ['test.yaml', 42, 19]);
  const signing = byId(report, 'task.finished.webhook-signature')?.rule;
  assert.deepEqual([signing?.text, signing?.location?.line, signing?.location?.column], ['signing: standard-webhooks', 38, 60]);
});

test('events: a service that records a delivery as delivered a moment after the answer passes (no race)', async (t) => {
  const report = await run(t, { fake: { settleDelayMs: 400 } });
  passed(report, ['webhooks.replay', 'webhooks.rotate-secret']);
});

test('events: CloudEvents structured deliveries pass when the spec declares them', async (t) => {
  const spec = EVENTS_SPEC.replace('signing: standard-webhooks,', 'signing: standard-webhooks, cloudEvents: true,');
  const report = await run(t, { spec, fake: { cloudEvents: true } });
  passed(report, ['task.created.webhook', 'task.finished.webhook', 'task.finished.webhook-signature']);
  assert.match(byId(report, 'task.created.webhook')?.title ?? '', /CloudEvents/);
});

test('events: plain deliveries fail a spec that declares CloudEvents', async (t) => {
  const spec = EVENTS_SPEC.replace('signing: standard-webhooks,', 'signing: standard-webhooks, cloudEvents: true,');
  const report = await run(t, { spec });
  assert.equal(byId(report, 'task.created.webhook')?.outcome, 'fail');
  assert.match(byId(report, 'task.created.webhook')?.message ?? '', /content type is 'application\/json', not application\/cloudevents\+json/);
});

test('events: with subscriptions configured by the operator, webhooks need --webhook-secret; the stream is checked anyway', async (t) => {
  const spec = EVENTS_SPEC.replace('subscriptions: api, path: /webhooks,', 'subscriptions: config,');
  const without = await run(t, { spec });
  assert.equal(without.counts.fail, 0, formatHuman(without));
  const skipped = byId(without, 'webhooks');
  assert.equal(skipped?.outcome, 'skip');
  assert.match(skipped?.message ?? '', /configured by the operator: register http:\/\/127\.0\.0\.1:<port>\/svcspec\/webhooks .*--callback-port.*--webhook-secret/);
  assert.equal(byId(without, 'task.created.stream')?.outcome, 'pass');
  assert.equal(byId(without, 'task.created.webhook'), undefined);

  const port = await freePort();
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const withSecret = await run(t, { spec, fake: { operator: { url: `http://127.0.0.1:${port}/svcspec/webhooks`, secret } }, events: { callbackPort: port, webhookSecret: secret } });
  passed(withSecret, ['task.created.webhook', 'task.created.webhook-signature', 'task.finished.webhook', 'task.created.stream', 'stream.resume']);
  assert.equal(byId(withSecret, 'webhooks.subscribe'), undefined, 'nothing subscribes through an API the spec does not have');
});

const FAULTS: { name: string; faults: Faults; id: string; rule: RegExp; message: RegExp; timeoutMs?: number; also?: { id: string; message: RegExp } }[] = [
  { name: 'sends an unsigned webhook', faults: { unsigned: true }, id: 'task.created.webhook-signature', rule: /^signing: standard-webhooks$/, message: /not signed: it has no webhook-id, webhook-timestamp, webhook-signature headers/ },
  { name: 'signs with the wrong secret', faults: { wrongSignature: true }, id: 'task.finished.webhook-signature', rule: /^signing: standard-webhooks$/, message: /no v1 signature in webhook-signature matches/ },
  { name: 'never emits an event', faults: { drop: 'task.finished' }, id: 'task.finished.webhook', rule: /^task\.finished: on task\.finish/, message: /no task\.finished about task '\d+' was delivered within 1\.5 s/, timeoutMs: 1500, also: { id: 'task.finished.stream', message: /no task\.finished about task '\d+' arrived on the stream/ } },
  { name: 'leaks a writeOnly field in the payload', faults: { leak: 'writeOnly' }, id: 'task.created.webhook', rule: /payload resource/, message: /'data' leaks the writeOnly field 'pin'/ },
  { name: 'carries an undeclared field in the payload', faults: { leak: 'extra' }, id: 'task.finished.stream', rule: /payload \[id, title, status\]/, message: /carries 'internalNote', which the event's payload \[id, title, status\] does not list/ },
  { name: 'ignores Last-Event-ID', faults: { ignoreLastEventId: true }, id: 'stream.resume', rule: /^stream: \/events$/, message: /the replay misses evt_\d+ \(with Last-Event-ID: evt_\d+/, timeoutMs: 1500 },
  { name: 'replays from the start whatever Last-Event-ID says', faults: { replayAll: true }, id: 'stream.resume', rule: /^stream: \/events$/, message: /the replay sends evt_\d+, which came before the resume point/ },
  { name: "shows one principal another's events", faults: { leakToOthers: true }, id: 'task.visibility', rule: /^task: owned$/, message: /bob's stream got task\.\w+ \(evt_\d+\) of ann's task '\d+'/ },
  { name: 'shows a principal events of records it may not read', faults: { ignoreScopes: true }, id: 'visibility.scopes', rule: /^note\.read needs notes$/, message: /carl's stream got note\.added \(evt_\d+\) of ann's note '\d+'/ },
  { name: 'does not retry a refused delivery', faults: { noRetry: true }, id: 'webhooks.retry', rule: /^retry: 3 attempts, fixed, first after 1 s$/, message: /answered 503 was not attempted again within 4 s/ },
  { name: 'keeps delivering after a 410 Gone', faults: { ignoreGone: true }, id: 'webhooks.gone', rule: /^webhooks: subscriptions api/, message: /status is "enabled", not 'disabled'/ },
  { name: 'drops the old secret at once when rotating', faults: { dropOldSecret: true }, id: 'webhooks.rotate-secret', rule: /rotate-secret$/, message: /under the old secret \(it keeps signing for 24 h\): no v1 signature in webhook-signature matches/ },
  { name: 'replays a delivery under a new webhook-id', faults: { replayNewId: true }, id: 'webhooks.replay', rule: /deliveries, replay$/, message: /the replay came under webhook-id evt_\d+, not evt_\d+: one event keeps one id/ },
  { name: 'lists a delivery under another event type', faults: { wrongDeliveryType: true }, id: 'webhooks.replay', rule: /deliveries, replay$/, message: /the delivery of evt_\d+ has type "task\.nothing"; the event it carried is task\.\w+/ },
  { name: 'serves its stream in the default version whatever version is asked', faults: { streamInDefaultVersion: true }, id: 'stream.version-2', rule: /^stream: \/events, in each live version$/, message: /no task\.reopened about task '\d+' arrived on the stream of version 2 within 1\.5 s/, timeoutMs: 1500 },
  { name: 'sends an event outside its versions', faults: { ignoreVersions: true }, id: 'task.reopened.not-in-version', rule: /since|versions 2/, message: /task\.reopened \(id evt_\d+\) was sent on the stream of version 1/ },
];

// Each fault has a service of its own: they run side by side (most of their time is waiting).
describe('events: faults', { concurrency: 4 }, () => {
  for (const fault of FAULTS) {
    test(`events: the tester catches an implementation that ${fault.name}`, async (t) => {
      const report = await run(t, { faults: fault.faults, ...(fault.timeoutMs ? { events: { timeoutMs: fault.timeoutMs } } : {}) });
      const r = byId(report, fault.id);
      assert.equal(r?.outcome, 'fail', `${fault.id} did not fail:\n${formatHuman(report)}`);
      assert.match(r?.message ?? '', fault.message);
      assert.match(r?.rule?.text ?? '', fault.rule);
      assert.ok(r?.rule?.location, 'the rule has its place in the spec');
      assert.ok(r?.exchange, 'the failure shows what was received');
      if (fault.also) {
        assert.equal(byId(report, fault.also.id)?.outcome, 'fail', `${fault.also.id} did not fail`);
        assert.match(byId(report, fault.also.id)?.message ?? '', fault.also.message);
      }
    });
  }
});

test('events: a spec without events, or a run without credentials, skips the part saying why', async (t) => {
  const fake = await startEventsService({ keys: KEYS });
  t.after(fake.close);
  const none = await runConformance({ spec: mustLoad(EVENTS_SPEC.replace(/^events:\n(?: .*\n)+/m, 'events: {none: Tasks tell nobody.}\n')), baseUrl: fake.baseUrl, principals: PRINCIPALS, seed: 1, only: ['events'] });
  assert.deepEqual(none.results.map((r) => [r.outcome, r.message]), [['skip', 'the spec states the service emits none: Tasks tell nobody.']]);
  const anonymous = await runConformance({ spec: mustLoad(EVENTS_SPEC), baseUrl: fake.baseUrl, principals: [], seed: 1, only: ['events'] });
  assert.deepEqual(anonymous.results.map((r) => r.outcome), ['skip']);
  assert.match(anonymous.results[0].message ?? '', /need credentials: give a principal with --credentials/);
});

test('events: the receiver records each delivery as sent and answers a chosen status for the next ones', async (t) => {
  const receiver = await WebhookReceiver.start();
  t.after(() => receiver.close());
  assert.match(receiver.url('main'), /^http:\/\/127\.0\.0\.1:\d+\/svcspec\/webhooks\/main$/);
  receiver.answerNext(2, 503);
  const statuses = [];
  for (const n of [1, 2, 3]) statuses.push((await fetch(receiver.url('main'), { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': `evt_${n}` }, body: `{"n":${n}}` })).status);
  assert.deepEqual(statuses, [503, 503, 204]);
  const got = await receiver.deliveries.until((items) => (items.length === 3 ? items : undefined), Date.now() + 1000);
  assert.deepEqual(got?.map((d) => [d.method, d.headers['webhook-id'], d.body, d.status]), [['POST', 'evt_1', '{"n":1}', 503], ['POST', 'evt_2', '{"n":2}', 503], ['POST', 'evt_3', '{"n":3}', 204]]);
  assert.ok(got?.every(receiver.to('main')) && !got?.some(receiver.to('other')));
  const started = Date.now();
  assert.equal(await receiver.deliveries.until((items) => (items.length > 3 ? true : undefined), Date.now() + 200), undefined);
  assert.ok(Date.now() - started >= 190, 'waited until the deadline');
});

test('events: the independent signature check agrees with the standardwebhooks library', () => {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const other = `whsec_${randomBytes(32).toString('base64')}`;
  const body = Buffer.from('{"type":"task.created","timestamp":"2026-11-21T10:00:00.000Z","data":{"id":1,"title":"é"}}');
  const now = new Date();
  const ts = String(Math.floor(now.getTime() / 1000));
  const sign = (s: string) => new Webhook(s).sign('evt_1', now, body.toString('utf8'));
  const headers = (signature: string, timestamp = ts) => ({ 'webhook-id': 'evt_1', 'webhook-timestamp': timestamp, 'webhook-signature': signature });
  assert.equal(signatureProblem(secret, headers(sign(secret)), body, now.getTime()), undefined);
  assert.equal(signatureProblem(secret, headers(`${sign(other)} ${sign(secret)}`), body, now.getTime()), undefined, 'one of several signatures (a rotated secret) is enough');
  assert.match(signatureProblem(secret, headers(sign(other)), body, now.getTime()) ?? '', /no v1 signature .* matches/);
  assert.match(signatureProblem(secret, headers(sign(secret)), Buffer.from(`${body} `), now.getTime()) ?? '', /matches/, 'a changed body fails');
  assert.match(signatureProblem(secret, headers(sign(secret).replace('v1,', 'v2,')), body, now.getTime()) ?? '', /holds no v1 signature/);
  assert.match(signatureProblem(secret, headers(sign(secret)), body, Number(ts) * 1000 + 301_000) ?? '', /301 s from the receiver's clock; at most 300/);
  assert.match(signatureProblem(secret, {}, body, now.getTime()) ?? '', /not signed/);
  assert.match(signatureProblem('sk_nope', headers(sign(secret)), body, now.getTime()) ?? '', /whsec_/);
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
