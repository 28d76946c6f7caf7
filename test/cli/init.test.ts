/** `svcspec init`: the schema line editors read, pointing at a schema that exists. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { test } from 'node:test';
import { loadSpec } from '../../src/load/index.ts';
import { NEW_SPEC } from '../../src/spec/template.ts';
import { BIN, specInTempDir } from '../support/child-server.ts';
import { spawnSync } from 'node:child_process';

test('init: svcspec.yaml by default, starting with the yaml-language-server schema line; it still loads as nine gaps', async (t) => {
  const { dir } = specInTempDir(t, '', 'unused.txt');
  const r = spawnSync(process.execPath, [BIN, 'init'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const text = readFileSync(join(dir, 'svcspec.yaml'), 'utf8');
  const m = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
  assert.ok(m);
  // Outside a project that installs svcspec (here: run from the checkout), the absolute path.
  assert.ok(isAbsolute(m[1]) && existsSync(m[1]), m[1]);
  assert.equal(text.slice(m[0].length), NEW_SPEC);
  const loaded = await loadSpec(join(dir, 'svcspec.yaml'));
  assert.deepEqual(loaded.diagnostics, []);
  assert.equal(loaded.value?.parts.purpose.statement, 'gap');
});
