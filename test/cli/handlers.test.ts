/**
 * `svcspec serve SPEC --handlers ./handlers.js` as a real child process: the module's
 * handlers perform the prose actions; without the flag, and for actions the module leaves
 * out, they answer 501; a module that cannot be loaded, or names no action, stops the start.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, specInTempDir, startServe } from '../support/child-server.ts';

const SPEC = `svcspec: 1
purpose: { name: Prices, summary: Quotes prices., users: [{ name: buyer, tasks: [ask a price] }] }
resources:
  item:
    plural: items
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
      name: { type: string, required: true }
states: { none: No life cycle. }
endpoints:
  item:
    create: {}
    quote:
      operation: action
      path: /items/quote
      request: { fields: { pages: { type: integer, minimum: 1, required: true } } }
      response: { fields: { price: { type: number, required: true } } }
      behaviour: Five cents a page.
    rename:
      operation: action
      request: { fields: { name: { type: string, required: true } } }
      behaviour: Renames the item and answers it.
authentication: { none: A local test service. }
events: { none: No events. }
errors:
  shape: problem
  catalog:
    validation-failed: { status: 422, title: Validation failed }
    not-implemented: { status: 501, title: Not implemented }
limits: { none: A local test service. }
versioning: { none: One version. }
`;

const HANDLERS = `export default {
  'item.quote': async ({ body }) => ({ price: body.pages * 0.05 }),
};
`;

async function post(url: string, body: unknown) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

test('serve --handlers: the module performs its actions; the others, and every action without the flag, answer 501', async (t) => {
  const { dir, spec, children } = specInTempDir(t, SPEC);
  writeFileSync(join(dir, 'handlers.js'), HANDLERS);
  const withHandlers = await startServe([spec, '--port', '0', '--db', ':memory:', '--quiet', '--handlers', join(dir, 'handlers.js')]);
  children.push(withHandlers.child);
  assert.deepEqual(await post(`${withHandlers.url}/items/quote`, { pages: 40 }), { status: 200, body: { price: 2 } });
  assert.equal((await post(`${withHandlers.url}/items/quote`, { pages: 0 })).status, 422);
  const item = await post(`${withHandlers.url}/items`, { name: 'a' });
  assert.equal((await post(`${withHandlers.url}/items/${item.body.id}/rename`, { name: 'b' })).status, 501, 'the module leaves rename out');
  const without = await startServe([spec, '--port', '0', '--db', ':memory:', '--quiet']);
  children.push(without.child);
  const r = await post(`${without.url}/items/quote`, { pages: 40 });
  assert.equal(r.status, 501);
  assert.equal(r.body.code, 'not-implemented');
});

test('serve --handlers refuses to start on a module it cannot load or one naming no action of the spec', (t) => {
  const { dir, spec } = specInTempDir(t, SPEC);
  const missing = cli(['serve', spec, '--port', '0', '--db', ':memory:', '--handlers', join(dir, 'nope.js')]);
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /the handlers module .*nope\.js cannot be loaded/);
  writeFileSync(join(dir, 'typo.js'), `export default { 'item.qoute': async () => ({}) };\n`);
  const typo = cli(['serve', spec, '--port', '0', '--db', ':memory:', '--handlers', join(dir, 'typo.js')]);
  assert.notEqual(typo.status, 0);
  assert.match(typo.stderr, /'item\.qoute', which is not an action of the spec \(its actions: item\.quote, item\.rename\)/);
});
