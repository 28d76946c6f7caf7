import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveVersions, toAsyncApi } from '../../src/export/index.ts';
import { mustLoad } from '../support/spec.ts';
import { EXAMPLES, GAP_CASES, asyncApiErrors, example } from './support.ts';

type Json = Record<string, any>;

for (const name of EXAMPLES) {
  test(`asyncapi: ${name} exports a valid AsyncAPI 3.0 document for every version served`, async () => {
    const spec = await example(name);
    const versions = liveVersions(spec).map((v) => v.name);
    for (const version of versions.length ? versions : [undefined]) {
      const { document } = toAsyncApi(spec, version ? { version } : {});
      assert.equal(document.asyncapi, '3.0.0');
      assert.deepEqual(await asyncApiErrors(document), [], `${name} version ${version}`);
      assert.equal(document.channels !== undefined, spec.parts.events.statement === 'given');
    }
  });
}

for (const [title, make] of Object.entries(GAP_CASES)) {
  test(`asyncapi: ${title}: a minimal valid document and a finding`, async () => {
    const { document, findings } = toAsyncApi(make());
    assert.deepEqual(await asyncApiErrors(document), []);
    assert.equal(document.channels, undefined);
    assert.deepEqual(findings.filter((f) => f.code === 'export-part-gap').map((f) => f.pointer), ['/events']);
  });
}

test('asyncapi: webhooks with Standard Webhooks headers, the stream with Last-Event-ID, one message per event, send operations', async () => {
  const { document: doc } = toAsyncApi(await example('library.yaml'));
  const d = doc as Json;
  assert.equal(d.channels.webhooks.address, null);
  assert.deepEqual(d.channels.webhooks.servers, [{ $ref: '#/servers/subscriber' }]);
  assert.equal(d.channels.stream.address, '/events');
  assert.match(d.channels.stream.description, /Last-Event-ID/);
  const approved = d.components.messages['loan.approved.webhook'];
  assert.deepEqual(approved.headers.required, ['webhook-id', 'webhook-timestamp', 'webhook-signature']);
  // A delivery's body is the Standard Webhooks structure, as served (docs/events.md); the stream's data is the payload alone.
  assert.deepEqual(approved.payload.required, ['type', 'timestamp', 'data']);
  assert.equal(approved.payload.properties.type.const, 'loan.approved');
  assert.deepEqual(approved.payload.properties.data, { $ref: '#/components/schemas/Loan' });
  assert.deepEqual(d.components.messages['loan.approved.stream'].payload, { $ref: '#/components/schemas/Loan' });
  assert.match(approved.headers.properties['webhook-id'].description, /event id/);
  // The stream needs the API's credentials: its operation names the spec's schemes.
  assert.ok(d.operations.streamEvents.security.length > 0);
  assert.ok(d.operations.streamEvents.security.every((r: { $ref: string }) => r.$ref.replace('#/components/securitySchemes/', '') in d.components.securitySchemes));
  // Named fields: only those, with the record's schemas.
  const requested = d.components.messages['loan.requested.stream'].payload;
  assert.deepEqual(Object.keys(requested.properties), ['id', 'book', 'member', 'status', 'dueDate']);
  assert.equal(requested.properties.member.type, 'integer');
  assert.deepEqual(Object.values(d.operations).map((o: any) => o.action), ['send', 'send']);
  assert.equal(d.operations.deliverWebhooks.messages.length, Object.keys(d.channels.webhooks.messages).length);
  assert.deepEqual(d.channels.webhooks['x-svcspec-retry'], { attempts: 6, backoff: 'exponential', initialDelay: '30s', maxDelay: '1h' });
});

test('asyncapi: CloudEvents structured mode when declared', async () => {
  const { document: doc } = toAsyncApi(await example('orders.yaml'));
  const placed = (doc as Json).components.messages['order.placed.webhook'];
  assert.equal(placed.contentType, 'application/cloudevents+json');
  assert.equal(placed.payload.properties.type.const, 'order.placed');
  assert.deepEqual(placed.payload.properties.data, { $ref: '#/components/schemas/Order' });
  // The stream carries the payload itself.
  assert.deepEqual((doc as Json).components.messages['order.placed.stream'].payload, { $ref: '#/components/schemas/Order' });
});

test('asyncapi: events of other versions are left out and reported', async () => {
  const spec = await example('library.yaml');
  const v2 = toAsyncApi(spec);
  const v1 = toAsyncApi(spec, { version: '1' });
  assert.ok((v2.document as Json).channels.webhooks.messages['member.suspended']);
  assert.equal((v1.document as Json).channels.webhooks.messages['member.suspended'], undefined);
  assert.deepEqual(v1.findings.filter((f) => f.code === 'export-version-event').map((f) => f.pointer), ['/events/catalog/member.suspended']);
});

test('asyncapi: what AsyncAPI cannot express is a finding with its pointer', async () => {
  const { findings } = toAsyncApi(await example('library.yaml'));
  const at = (code: string) => findings.filter((f) => f.code === code).map((f) => f.pointer);
  assert.deepEqual(at('export-events-retry'), ['/events/retry']);
  assert.deepEqual(at('export-events-timing'), ['/events/webhooks', '/events/stream']);
  assert.deepEqual(at('export-events-subscriptions'), ['/events/webhooks']);
  assert.deepEqual(at('export-purpose-users'), ['/purpose/users']);
});

test('asyncapi: an events part stated as none says so', async () => {
  const { document, findings } = toAsyncApi(mustLoad(`
svcspec: 1
purpose: { name: Quiet, summary: Says nothing. }
events: { none: "It emits no events." }
`));
  assert.deepEqual(await asyncApiErrors(document), []);
  assert.match(findings.find((f) => f.code === 'export-part-gap')?.message ?? '', /stated as none \("It emits no events."\)/);
});
