/**
 * Path parameters of a shape of their own (`params: { day: { type: string, format: date } }`):
 * read by their type and held to their constraints before the handler, refused with
 * validation-failed at `/path/<name>` in the declared shape, over real HTTP.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { checkSpec } from '../../src/check/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { mustLoad } from '../support/spec.ts';
import { freshStore } from './support/open-app.ts';

const SPEC = readFileSync(new URL('./fixtures/notes-days.yaml', import.meta.url), 'utf8');

test('shaped path parameters: a value that does not fit its shape is 422 at /path/<name>; one that fits is served', async (t) => {
  const spec = mustLoad(SPEC);
  assert.deepEqual(checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error').map((d) => d.code), []);
  const store = await freshStore();
  const app = await createApp({ spec, store });
  t.after(async () => { await app.close(); await store.close(); });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const refused = async (path: string, pointer: string, message: RegExp) => {
    const r = await fetch(`${base}${path}`);
    assert.equal(r.status, 422, path);
    const body = (await r.json()) as { code: string; errors: { pointer: string; message: string }[] };
    assert.equal(body.code, 'validation-failed');
    assert.equal(body.errors[0].pointer, pointer, path);
    assert.match(body.errors[0].message, message, path);
  };
  await refused('/days/2026-13-45/notes', '/path/day', /date/);
  await refused('/days/yesterday/notes', '/path/day', /date/);
  await refused('/pages/0/notes', '/path/n', /1/);
  await refused('/pages/51/notes', '/path/n', /50/);
  await refused('/pages/two/notes', '/path/n', /must be a whole number, not 'two'/);
  for (const path of ['/days/2026-01-02/notes', '/pages/3/notes', '/notes']) assert.equal((await fetch(`${base}${path}`)).status, 200, path);
});
