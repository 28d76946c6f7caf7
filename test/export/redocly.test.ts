/**
 * A second third-party judge of the OpenAPI export (issue #13: "swagger-parser, Redocly lint
 * stay at 0 errors"): Redocly's CLI lints each example's export with its built-in
 * `recommended` rules, as a user's CI would, and finds no error. Warnings are printed, not
 * failed: `info-license` asks for a licence the spec has no place for (no value is invented).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { toOpenApi } from '../../src/export/index.ts';
import { example } from './support.ts';

const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

interface Lint {
  readonly totals: { readonly errors: number; readonly warnings: number };
  readonly problems: readonly { readonly ruleId: string; readonly severity: string; readonly message: string; readonly location: readonly { readonly pointer: string }[] }[];
}

for (const name of ['library.yaml', 'orders.yaml', 'helpdesk.yaml', 'json-server.yaml']) {
  test(`redocly lint: the OpenAPI export of ${name} has no error under the recommended rules`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svcspec-redocly-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, `${name}.openapi.json`);
    writeFileSync(file, JSON.stringify(toOpenApi(await example(name)).document));
    const r = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--format=json'], {
      encoding: 'utf8',
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
    });
    const start = r.stdout.indexOf('{');
    assert.ok(start >= 0, `redocly printed no report (exit ${r.status}):\n${r.stderr}`);
    const lint = JSON.parse(r.stdout.slice(start)) as Lint;
    const errors = lint.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(errors, []);
    assert.equal(lint.totals.errors, 0);
    assert.equal(r.status, 0);
    t.diagnostic(`${name}: 0 errors, ${lint.totals.warnings} warning(s): ${[...new Set(lint.problems.map((p) => p.ruleId))].join(', ') || 'none'}`);
  });
}
