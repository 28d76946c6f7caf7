/**
 * The proxy in front of the project's fault-injected services (test/conformance/fakes: the
 * reference service with one fault slipped in by a hook), while the tester drives the part
 * the fault is in through it: each fault the traffic exercises is reported, as the kind of
 * finding that names it, with the rule of the spec it broke at file:line:column.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runConformance } from '../../src/conformance/index.ts';
import { findingLine, startProxy } from '../../src/proxy/index.ts';
import type { PartName } from '../../src/spec/parts.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from '../conformance/support.ts';
import { PROMISE_FAULTS } from '../conformance/fakes/promise-faults.ts';
import { SERVICE_FAULTS } from '../conformance/fakes/service-faults.ts';

/** Each fault by name: the finding that must report it, or why the traffic cannot show it to the proxy. */
const EXPECTED: Record<string, { readonly finding: string; readonly rule: RegExp } | { readonly unseen: string }> = {
  'accepts an illegal transition': { finding: 'states/illegal-transition', rule: /from \[/ },
  'drops a required-field check': { finding: 'resources/accepted-request-invalid', rule: /: required$/ },
  'drops a required field from the records it lists': { finding: 'resources/record-value', rule: /^book\.title: required$/ },
  'sends a Location where the record is not read': { finding: 'endpoints/location', rule: /Location names it \(RFC 9110/ },
  'leaks a writeOnly field': { finding: 'resources/write-only-leak', rule: /writeOnly$/ },
  'ignores a missing credential': { finding: 'errors/wrong-error', rule: /not public$/ },
  "lets one principal read another's record": { unseen: 'its stand-in is the first key the service sees, a mangled one the tester sends: the other principal is answered 401, which the proxy cannot tell from a revoked key (see the creator-key fault below)' },
  'omits the Sunset header': { finding: 'versioning/deprecation-fields', rule: /deprecated/ },
  'repeats a record across pages': { finding: 'limits/page-repeat', rule: /each record once$/ },
  'answers a subscription without its secret': { unseen: 'webhook subscriptions and deliveries (part 6) are not judged by the proxy yet' },
  'resumes its event stream ignoring Last-Event-ID': { unseen: 'it sends only live events after a resume: less than the log holds, nothing wrong in what it sends; the proxy sees the ids it gets, not the ones it was owed (a replay from the start is found: test/proxy/stream-faults.test.ts)' },
  'ignores a declared prefix filter': { finding: 'endpoints/filter-broken', rule: /title: eq, prefix, contains$/ },
  'ignores a declared sort': { finding: 'endpoints/sort-broken', rule: /sort title, publishedOn, pages$/ },
  'ignores the full-text parameter': { finding: 'limits/page-repeat', rule: /each record once$/ },
  'reads a lower bound as exclusive (gte as gt)': { unseen: 'every record it answers meets the filter; the one it leaves out is one the proxy never saw' },
  'answers errors in another shape': { finding: 'errors/error-media-type', rule: /^errors\.shape/ },
  'sends a new ETag on every read of an unchanged record': { finding: 'limits/etag-unstable', rule: /strong ETag$/ },
  'ignores If-Match (a stale tag overwrites the record)': { finding: 'limits/precondition-ignored', rule: /If-Match$/ },
  'answers a current If-None-Match with 200 and the body': { finding: 'limits/not-modified-ignored', rule: /If-None-Match$/ },
  'ignores the Idempotency-Key (a retried create makes a second record)': { finding: 'limits/idempotency-ignored', rule: /^limits\.idempotency/ },
  "keeps one namespace of idempotency keys for every credential (another principal's key replays the first's answer)": { finding: 'limits/idempotency-shared', rule: /^limits\.idempotency/ },
  'links the next page without its position (the link leads back to the first page)': { finding: 'limits/page-link', rule: /links \[next\]$/ },
  'forgets a filter after the first page': { finding: 'endpoints/filter-broken', rule: /pages: gte, lte$/ },
  'announces another quota in RateLimit-Policy than the spec declares': { finding: 'limits/rate-policy', rule: /^limits\.rate/ },
  'sends Deprecation on the current version too': { finding: 'versioning/deprecation-on-current', rule: /current$/ },
  'puts its stack trace in a 404 body': { finding: 'errors/error-internals', rule: /^errors\.shape/ },
  'accepts a postal code inside the address that breaks its pattern': { finding: 'resources/accepted-request-invalid', rule: /postalCode: pattern/ },
};

/** The owner leak with a stand-in the proxy can see: the key of the principal that created the reading list. */
const CREATOR_KEY = {
  name: "lets one principal read another's record (the creator's key stands in)",
  part: 'authentication' as PartName,
  tweak: (app: FastifyInstance) => {
    let creator: string | undefined;
    app.addHook('onResponse', async (request, reply) => {
      if (request.method === 'POST' && request.url === '/reading-lists' && reply.statusCode === 201) creator ??= request.headers['x-api-key'] as string;
    });
    app.addHook('onRequest', async (request) => {
      if (creator && request.method === 'GET' && /^\/reading-lists\//.test(request.url) && request.headers['x-api-key']) request.headers['x-api-key'] = creator;
    });
  },
};

const FAULTS = [...SERVICE_FAULTS, ...PROMISE_FAULTS, CREATOR_KEY];

test('proxy faults: every fault of the fakes has an expectation here', () => {
  assert.deepEqual(FAULTS.filter((f) => !(f.name in EXPECTED) && f !== CREATOR_KEY).map((f) => f.name), []);
});

for (const fault of FAULTS) {
  const expected = fault === CREATOR_KEY ? { finding: 'authentication/owner-leak', rule: /readingList: owned$/ } : EXPECTED[fault.name];
  if (!expected || 'unseen' in expected) continue;
  test(`proxy reports a service that ${fault.name}`, async (t) => {
    const spec = await exampleSpec('library.yaml');
    const { baseUrl, principals, sleep, now } = await serveForTester(t, spec, fault.tweak);
    const proxy = await startProxy({ spec, upstream: baseUrl, now });
    t.after(() => proxy.close());
    await runConformance({ spec, baseUrl: proxy.url, principals, seed: 7, sleep, now, only: [fault.part], events: { timeoutMs: 2000 } });
    const named = proxy.findings.filter((f) => `${f.part}/${f.id}` === expected.finding);
    assert.ok(named.length > 0, `no ${expected.finding} among: ${[...new Set(proxy.findings.map((f) => `${f.part}/${f.id}`))].join(', ') || 'no findings'}`);
    const f = named.find((n) => expected.rule.test(n.rule.text));
    assert.ok(f, `no ${expected.finding} names the rule ${expected.rule}: ${named.slice(0, 3).map((n) => n.rule.text).join('; ')}`);
    assert.match(findingLine(f), /\(\/.+\/examples\/library\.yaml:\d+:\d+\)/, 'the finding names the rule at file:line:column');
    assert.equal(f.rule.location?.file.endsWith('library.yaml'), true);
  });
}
