/**
 * List pages in the shapes a spec may declare besides svcspec's own (src/serve/page-shapes.ts):
 * numbered pages in a named envelope with the total, a bare array without a page asked for,
 * a renamed sort parameter, and a bare-array page linked only by `Link: rel="next"`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createApp } from '../../src/serve/app.ts';
import { mustLoad } from '../support/spec.ts';
import { freshStore } from './support/open-app.ts';

const JSON_SERVER = readFileSync(new URL('../../examples/json-server.yaml', import.meta.url), 'utf8');

async function served(t: import('node:test').TestContext, text: string, posts: number) {
  const store = await freshStore();
  const app = await createApp({ spec: mustLoad(text), store });
  t.after(async () => { await app.close(); await store.close(); });
  for (let i = 1; i <= posts; i++) await store.insert('post', { id: `p${i}`, data: { title: `post ${i}`, views: (i * 7) % 10 } });
  return app;
}

test('json-server pages: a bare array of every post without _page; numbered pages in {data, next, items} with it', async (t) => {
  const app = await served(t, JSON_SERVER, 23);
  const all = await app.inject({ method: 'GET', url: '/posts?_sort=-views' });
  assert.equal(all.statusCode, 200);
  const every = all.json() as { id: string; views: number }[];
  assert.ok(Array.isArray(every) && every.length === 23, 'without _page: every record, as a bare array');
  assert.deepEqual(every.map((p) => p.views), [...every.map((p) => p.views)].sort((a, b) => b - a), '_sort is the sort parameter');
  const seen: string[] = [];
  let page: number | null = 1;
  let pages = 0;
  while (page !== null) {
    const r: Awaited<ReturnType<typeof app.inject>> = await app.inject({ method: 'GET', url: `/posts?_page=${page}&_per_page=10` });
    assert.equal(r.statusCode, 200);
    const body = r.json() as { data: { id: string }[]; next: number | null; items: number };
    assert.deepEqual(Object.keys(body).sort(), ['data', 'items', 'next']);
    assert.equal(body.items, 23, 'the total of the whole list, on every page');
    seen.push(...body.data.map((p) => p.id));
    if (body.next !== null) assert.match(String(r.headers.link), new RegExp(`_page=${body.next}>; rel="next"`));
    page = body.next;
    pages++;
  }
  assert.equal(pages, 3);
  assert.equal(new Set(seen).size, 23);
  // The default size is the spec's 10; a page number is a whole number from 1.
  assert.equal((((await app.inject({ method: 'GET', url: '/posts?_page=1' })).json()) as { data: unknown[] }).data.length, 10);
  const bad = await app.inject({ method: 'GET', url: '/posts?_page=0' });
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(bad.json(), { error: 'Validation failed' });
  // No maximum: any size asked for is served.
  assert.equal((((await app.inject({ method: 'GET', url: '/posts?_page=1&_per_page=1000' })).json()) as { data: unknown[] }).data.length, 23);
});

test('a bare-array page of cursor style: the next page only in the Link header', async (t) => {
  const text = JSON_SERVER.replace(/  pagination:\n(    .*\n)*/, '  pagination: {style: cursor, defaultSize: 5, maxSize: 5, overMax: clamp, body: array}\n');
  const app = await served(t, text, 12);
  const ids: string[] = [];
  let url: string | undefined = '/posts';
  while (url) {
    const r: Awaited<ReturnType<typeof app.inject>> = await app.inject({ method: 'GET', url });
    const body = r.json() as { id: string }[];
    assert.ok(Array.isArray(body) && body.length <= 5);
    ids.push(...body.map((p) => p.id));
    url = /^<([^>]+)>; rel="next"$/.exec(String(r.headers.link ?? ''))?.[1];
  }
  assert.equal(ids.length, 12);
  assert.equal(new Set(ids).size, 12);
});
