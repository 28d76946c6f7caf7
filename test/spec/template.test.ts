import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { NEW_SPEC } from '../../src/spec/template.ts';
import { PART_NAMES } from '../../src/spec/parts.ts';
import { load } from '../support/spec.ts';

test('init template: examples/empty.yaml is what init writes', () => {
  assert.equal(readFileSync(new URL('../../examples/empty.yaml', import.meta.url), 'utf8'), NEW_SPEC);
});

test('init template: loads without findings, all nine parts present and each a gap', () => {
  const { spec, diagnostics } = load(NEW_SPEC);
  assert.deepEqual(diagnostics, []);
  assert.ok(spec);
  for (const part of PART_NAMES) assert.equal(spec.parts[part].statement, 'gap', part);
});
