/**
 * The tester provokes guards of updates (`onUpdate`) and guards on each item of an array
 * (`each`), issue #14: against `svcspec serve` of the orders example every such guard is
 * checked and passes; against the same service with those guards left out (a faithful
 * implementation of the rest that forgot them), each missing guard is a failure named by
 * its check, and nothing else fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import type { Resource, Spec } from '../../src/spec/model.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';
import { mustLoad } from '../support/spec.ts';

const GUARDS = ['order.create.guard.product-off-sale', 'order.create.guard.coupon-invalid', 'order.update.guard.order-not-editable', 'order.update.guard.product-off-sale', 'order.place.guard.product-off-sale', 'order.place.guard.out-of-stock', 'order.pay.guard.payment-mismatch'];

/** The orders spec as an implementation that forgot the order's create and update guards and place's line guards would serve it. */
function forgetful(spec: Spec): Spec {
  const order = (r: Resource): Resource => {
    if (r.name !== 'order') return r;
    const { onCreate: _c, onUpdate: _u, ...rest } = r;
    return rest;
  };
  return {
    ...spec,
    resources: spec.resources.map(order),
    states: spec.states.map((m) => (m.resource !== 'order' ? m : { ...m, transitions: m.transitions.map((t) => (t.name === 'place' ? { ...t, rules: { ...(t.rules as NonNullable<typeof t.rules>), guards: [] } } : t)) })),
  };
}

test('tester: the guards of updates and on each order line are provoked, and pass against svcspec serve', async (t) => {
  const spec = await exampleSpec('orders.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['resources', 'states'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  for (const id of GUARDS) assert.equal(report.results.find((r) => r.id === id)?.outcome, 'pass', `${id} passed`);
});

test('tester: an implementation without those guards fails exactly them', async (t) => {
  const spec = await exampleSpec('orders.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, forgetful(spec));
  const report = await runConformance({ spec, baseUrl, principals, seed: 7, sleep, now, only: ['resources', 'states'] });
  const failed = report.results.filter((r) => r.outcome === 'fail').map((r) => r.id).sort();
  const forgotten = GUARDS.filter((id) => id !== 'order.pay.guard.payment-mismatch').sort();
  assert.deepEqual(failed, forgotten, formatHuman(report));
  assert.match(report.results.find((r) => r.id === 'order.update.guard.order-not-editable')?.message ?? '', /expected 409 \(order-not-editable\), got 200/);
});

test('tester: a guard on each item that reads the item alone is kept by generated data and provoked by an item at the edge', async (t) => {
  const spec = mustLoad(`svcspec: 1
purpose: {name: Carts, summary: Carts of a few units each., users: [{name: shopper, tasks: [fill a cart]}]}
resources:
  cart:
    plural: carts
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      lines:
        type: array
        required: true
        minItems: 1
        maxItems: 5
        items:
          type: object
          properties:
            sku: {type: string, pattern: '^[A-Z]{3}$', required: true}
            qty: {type: integer, minimum: 1, maximum: 100, required: true}
    onCreate:
      guards:
        - {each: lines, rule: item.qty <= 10, error: too-many, message: At most 10 of one thing.}
endpoints:
  cart: [create, read, list, delete]
errors:
  catalog:
    too-many: {status: 422, title: Too many units, when: A line asks for more than 10 units.}
`);
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const report = await runConformance({ spec, baseUrl, principals, seed: 11, sleep, now, only: ['resources'] });
  assert.equal(report.counts.fail, 0, formatHuman(report));
  assert.equal(report.results.find((r) => r.id === 'cart.create.guard.too-many')?.outcome, 'pass', formatHuman(report));
});

test('tester: an update effect is checked with the request that makes it apply (a comment whose body changes gets editedAt), and a service that skips it fails', async (t) => {
  const spec = await exampleSpec('helpdesk.yaml');
  const withoutEffect: Spec = { ...spec, resources: spec.resources.map((r) => (r.name === 'comment' ? (({ onUpdate: _u, ...rest }) => rest)(r) : r)) };
  const { baseUrl, principals, sleep, now } = await serveForTester(t, withoutEffect);
  const report = await runConformance({ spec, baseUrl, principals, seed: 5, sleep, now, only: ['resources'] });
  const check = report.results.find((r) => r.id === 'comment.update.effect.self.editedAt');
  assert.equal(check?.outcome, 'fail', formatHuman(report));
  assert.match(check?.message ?? '', /editedAt/);
});
