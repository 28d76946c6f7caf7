/** Colour codes go to a terminal only: never into a pipe, never with NO_COLOR; FORCE_COLOR forces them. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { BIN, ROOT } from '../support/child-server.ts';

const ESC = /\u001b\[/;
function help(env: Record<string, string | undefined>): string {
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.NO_COLOR;
  delete base.FORCE_COLOR;
  // citty's usage renderer colours nothing under CI=true (std-env's isCI): the test is of svcspec's choice, not of CI's.
  delete base.CI;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) base[k] = v;
  const r = spawnSync(process.execPath, [BIN, 'check', '--help'], { cwd: ROOT, encoding: 'utf8', env: base });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /USAGE/);
  return r.stdout;
}

test('--help into a pipe has no colour codes; FORCE_COLOR adds them; NO_COLOR wins over nothing', () => {
  assert.doesNotMatch(help({}), ESC, 'a pipe');
  assert.doesNotMatch(help({ NO_COLOR: '1' }), ESC, 'NO_COLOR');
  assert.match(help({ FORCE_COLOR: '1' }), ESC, 'FORCE_COLOR');
  assert.doesNotMatch(help({ FORCE_COLOR: '0' }), ESC, 'FORCE_COLOR=0');
});
