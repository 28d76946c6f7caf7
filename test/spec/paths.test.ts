import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { routeClashes, type RouteClash } from '../../src/spec/conventions/paths.ts';
import type { Endpoint } from '../../src/spec/model.ts';

/** Every pair compared, as routeClashes did before it used a trie: the reference it must agree with. */
function everyPair(endpoints: readonly Endpoint[]): RouteClash[] {
  const param = (s: string) => /^\{[^}]*\}$/.test(s);
  const out: RouteClash[] = [];
  for (let i = 0; i < endpoints.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = endpoints[i];
      const b = endpoints[j];
      const sa = a.path.split('/');
      const sb = b.path.split('/');
      if (a.path === b.path || sa.length !== sb.length) continue;
      let literalA = false;
      let literalB = false;
      let differ = false;
      sa.forEach((s, k) => {
        if (param(s) && param(sb[k])) return;
        if (!param(s) && !param(sb[k])) differ ||= s !== sb[k];
        else if (param(s)) literalB = true;
        else literalA = true;
      });
      if (differ) continue;
      if (!literalA && !literalB) {
        if (a.method !== b.method) out.push({ kind: 'ambiguous', endpoint: a, other: b });
      } else if (literalA !== literalB && a.method === b.method) out.push({ kind: 'shadow', endpoint: a, other: b, literal: literalA ? a : b });
    }
  }
  return out;
}

const endpoint = (id: string, method: string, path: string) => ({ id, method, path }) as unknown as Endpoint;

test('routeClashes: the same clashes, in the same order, as comparing every pair (random templates)', () => {
  const segment = fc.constantFrom('members', 'loans', 'me', 'books', '{id}', '{memberId}', '{loanId}');
  const template = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`);
  const method = fc.constantFrom('GET', 'POST', 'DELETE');
  fc.assert(
    fc.property(fc.array(fc.tuple(method, template), { maxLength: 14 }), (pairs) => {
      const endpoints = pairs.map(([m, p], i) => endpoint(`e${i}`, m, p));
      const summary = (clashes: readonly RouteClash[]) => clashes.map((c) => `${c.kind} ${c.endpoint.id} ${c.other.id} ${c.literal?.id ?? ''}`);
      assert.deepEqual(summary(routeClashes(endpoints)), summary(everyPair(endpoints)));
    }),
    { numRuns: 500 },
  );
});

test('routeClashes: the examples of its comment', () => {
  const loans = [endpoint('read', 'GET', '/loans/{id}'), endpoint('delete', 'DELETE', '/loans/{loanId}')];
  assert.deepEqual(routeClashes(loans).map((c) => [c.kind, c.endpoint.id, c.other.id]), [['ambiguous', 'delete', 'read']]);
  const me = [endpoint('me', 'GET', '/members/me'), endpoint('read', 'GET', '/members/{id}'), endpoint('list', 'GET', '/members')];
  assert.deepEqual(routeClashes(me).map((c) => [c.kind, c.endpoint.id, c.other.id, c.literal?.id]), [['shadow', 'read', 'me', 'me']]);
});

test('routeClashes: among 5,000 endpoints, the one shadow', () => {
  const endpoints: Endpoint[] = [];
  for (let r = 0; r < 1000; r++) {
    for (const m of ['GET', 'POST']) endpoints.push(endpoint(`r${r}.${m}`, m, `/res${r}`));
    for (const m of ['GET', 'PATCH', 'DELETE']) endpoints.push(endpoint(`r${r}.${m}1`, m, `/res${r}/{id}`));
  }
  endpoints.push(endpoint('me', 'GET', '/res7/me'));
  // A count, not a time: the answer is one shadow; the bench (npm run bench -- check) times it.
  assert.deepEqual(routeClashes(endpoints).map((c) => [c.kind, c.endpoint.id, c.other.id]), [['shadow', 'me', 'r7.GET1']]);
});
