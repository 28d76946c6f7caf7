/**
 * A run again with the same seed against a service that kept the first run's records (those
 * the spec gives no delete for): the same values are drawn, and a declared uniqueness refuses
 * the ones a leftover holds. A body the tester drew itself is then drawn again, so the second
 * run is not failed for records the first one left.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type Exchange } from '../../src/conformance/index.ts';
import { formatHuman } from '../../src/conformance/report/format.ts';
import { exampleSpec } from '../serve/support/open-app.ts';
import { serveForTester } from './support.ts';

test('the same seed twice against one service: values a leftover holds under a uniqueness are drawn again, nothing fails', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { baseUrl, principals, sleep, now } = await serveForTester(t, spec);
  const options = { spec, baseUrl, principals, seed: 4242, sleep, now, only: ['resources' as const] };
  const first = await runConformance(options);
  assert.equal(first.counts.fail, 0, formatHuman(first));
  assert.ok((first.left?.member ?? 0) > 0, 'members have no delete in library.yaml: the first run leaves some, with their emails');
  let taken = 0;
  const second = await runConformance({ ...options, onExchange: (e) => void (e.response.status === 422 && e.response.text.includes('"email-taken"') && new URL(e.request.url).pathname === '/members' && taken++) });
  assert.equal(second.counts.fail, 0, formatHuman(second));
  assert.ok(taken > 0, 'a leftover held an email the second run drew (else this test shows nothing)');
});

test('keyed creates (idempotency checks) draw again past a value a record the run did not make holds, and keys are one run\'s', async (t) => {
  const spec = await exampleSpec('helpdesk.yaml');
  // Part 4 alone, without waiting (ticket creates, 5 a minute, are left not checked); agents' emails are unique.
  const options = { spec, seed: 4343, only: ['endpoints' as const], waitBudgetMs: 0 };
  const keyedEmails = (sink: string[]) => (e: Exchange) => {
    if (e.request.method === 'POST' && new URL(e.request.url).pathname === '/agents' && e.request.headers['idempotency-key'] && e.request.body) sink.push(JSON.parse(e.request.body).email);
  };
  const drawn: string[] = [];
  const keys: string[] = [];
  const one = await serveForTester(t, spec);
  const first = await runConformance({ ...options, ...one, onExchange: (e) => (keyedEmails(drawn)(e), e.request.headers['idempotency-key'] && keys.push(e.request.headers['idempotency-key'])) });
  assert.equal(first.counts.fail, 0, formatHuman(first));
  assert.ok(drawn.length >= 2, 'the idempotency checks create agents with keys');
  // A service where a record the run cannot know of holds the first of those emails: the same seed draws it again.
  // (Only the first: the first run's later emails are what the second run's redraws draw next.)
  const two = await serveForTester(t, spec);
  const admin = two.principals.find((p) => p.scopes?.includes('agents:write')) ?? two.principals[0];
  for (const email of drawn.slice(0, 1)) {
    const r = await fetch(`${two.baseUrl}/agents?version=2`, { method: 'POST', headers: { ...admin.headers, 'content-type': 'application/json' }, body: JSON.stringify({ email, name: 'Held', password: 'a-long-password', role: 'agent', skills: ['returns'], maxOpenTickets: 3, timezone: 'Europe/Paris', active: true }) });
    assert.equal(r.status, 201, await r.text());
  }
  let taken = 0;
  const again: string[] = [];
  const second = await runConformance({ ...options, ...two, onExchange: (e) => {
    if (e.response.status === 422 && e.response.text.includes('"email-taken"') && e.request.headers['idempotency-key']) taken++;
    if (e.request.headers['idempotency-key']) again.push(e.request.headers['idempotency-key']);
  } });
  assert.equal(second.counts.fail, 0, formatHuman(second));
  assert.ok(taken > 0, 'a held email was drawn by a keyed create (else this test shows nothing)');
  assert.ok(['agent.create.idempotency.replay', 'agent.create.idempotency.reuse', 'agent.create.idempotency.scope'].every((id) => second.results.some((r) => r.id === id && r.outcome === 'pass')), formatHuman(second));
  // The same seed, another run: none of the first run's keys is sent again (an implementation keeps them a day).
  assert.equal(again.filter((k) => keys.includes(k)).length, 0);
});
