/**
 * serve's readiness verdict kept across starts (src/serve/readiness-cache.ts): read back only
 * for the same build, file and text; computed again after any edit, for another build, from a
 * damaged file, when turned off, or in a folder another user could write.
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Readiness } from '../../src/serve/readiness.ts';
import { cachedReadiness } from '../../src/serve/readiness-cache.ts';
import { freshTmpdirEachTest } from '../support/temp-dir.ts';

const VERDICT: Readiness = { ok: true, reasons: [], notes: ['Part 6, Events: not shown, so not enforced.'] };
const tempDir = freshTmpdirEachTest('svcspec-readiness-cache-');

/** cachedReadiness, counting the computations it asks for. */
/** `build` null: code without an identity (cachedReadiness's own default, buildId, is undefined from the sources). */
function verdict(text: string, build: string | null = 'build-a', file = 'spec.yaml', answer: Readiness = VERDICT) {
  let computed = 0;
  const r = cachedReadiness(file, text, () => (computed++, answer), build ?? undefined);
  return { r, computed };
}

test('readiness cache: the same build, file and text read the verdict back; an edit, another file or build compute it', () => {
  assert.equal(verdict('svcspec: 1\n').computed, 1);
  const again = verdict('svcspec: 1\n');
  assert.equal(again.computed, 0, 'read back');
  assert.deepEqual(again.r, VERDICT);
  assert.equal(verdict('svcspec: 1\n# an edit\n').computed, 1, 'one character more');
  assert.equal(verdict('svcspec: 1\n', 'build-b').computed, 1, 'another build');
  assert.equal(verdict('svcspec: 1\n', 'build-a', 'other.yaml').computed, 1, 'another file (its reasons name it)');
  // A refusal is kept as faithfully as a pass.
  const refused: Readiness = { ok: false, reasons: ["The spec has 2 errors; run 'svcspec check bad.yaml' to see them."], notes: [] };
  assert.equal(verdict('bad', 'build-a', 'bad.yaml', refused).computed, 1);
  assert.deepEqual(verdict('bad', 'build-a', 'bad.yaml').r, refused);
});

test('readiness cache: code without a build identity (sources, dist/) and SVCSPEC_NO_CACHE=1 compute every time', () => {
  assert.equal(verdict('svcspec: 1\n', null).computed, 1);
  assert.equal(verdict('svcspec: 1\n', null).computed, 1);
  assert.deepEqual(readdirSync(tempDir()), [], 'nothing written');
  verdict('svcspec: 1\n');
  process.env.SVCSPEC_NO_CACHE = '1';
  assert.equal(verdict('svcspec: 1\n').computed, 1);
});

test('readiness cache: a damaged or foreign file is computed again and replaced', () => {
  verdict('svcspec: 1\n');
  const dir = join(tempDir(), `svcspec-cache-${userInfo().uid}`);
  const [file] = readdirSync(dir);
  for (const damage of ['{"ok": tr', '{"ok": "yes", "reasons": [], "notes": []}', 'null']) {
    writeFileSync(join(dir, file as string), damage);
    assert.equal(verdict('svcspec: 1\n').computed, 1, damage);
    assert.equal(verdict('svcspec: 1\n').computed, 0, `rewritten after ${damage}`);
  }
});

test('readiness cache: a folder others may write is not trusted', () => {
  const dir = join(tempDir(), `svcspec-cache-${userInfo().uid}`);
  verdict('svcspec: 1\n');
  chmodSync(dir, 0o777);
  assert.equal(verdict('svcspec: 1\n').computed, 1, 'not read from a folder others can write');
  assert.equal(verdict('svcspec: 1\n').computed, 1);
});
