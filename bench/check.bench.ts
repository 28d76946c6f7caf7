/**
 * The check bench: a generated spec of 1,000 resources x 20 fields, timed at three stages
 * against YAML parsing alone, the baseline measured in the same run.
 *   (a) js-yaml's load with the core schema, what the loader reads the data with   (baseline)
 *   (b) loadSpec: read + parse + validate + normalize
 *   (c) checkFile: load + rules + part status
 *   (d) (c) and every finding placed at file:line:column, as `svcspec check` prints them:
 *       the position index is built only when a finding asks for a place (src/load/yaml.ts),
 *       so (c) alone would leave out what a user waits for
 * Target: (d) under one second. A miss is reported, not failed; a spec that does not load
 * cleanly is a broken bench, and fails.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORE_SCHEMA, load as parseYaml } from 'js-yaml';
import { stringify } from 'yaml';
import { checkFile } from '../src/check/index.ts';
import { formatHuman } from '../src/check/format/human.ts';
import { loadSpec } from '../src/load/index.ts';
import { locationText } from '../src/spec/diagnostics.ts';
import { bigSpec, CHECK_BENCH_SPEC } from './support/big-spec.ts';
import { textTable, time } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const TARGET_MS = 1000;

const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function checkBench(): Promise<BenchOutcome> {
  const o = CHECK_BENCH_SPEC;
  const text = stringify(bigSpec(o), { lineWidth: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-bench-'));
  const file = join(dir, 'big.yaml');
  try {
    await writeFile(file, text);
    const lines = text.split('\n').length - 1;
    console.log(`spec: ${o.resources} resources x ${o.fields} fields, a state machine on every ${o.machineEvery}th, ${o.events} events`);
    console.log(`size: ${lines.toLocaleString('en')} lines, ${Buffer.byteLength(text).toLocaleString('en')} bytes (${file})`);

    // The bench is only meaningful on a spec that loads and checks without errors.
    const report = await checkFile(file);
    const errors = report.diagnostics.filter((d) => d.severity === 'error');
    if (!report.loaded || errors.length) {
      console.error(`the generated spec does not check cleanly (${errors.length} errors):`);
      for (const d of errors.slice(0, 50)) console.error(`  ${locationText(d.location)} ${d.code}: ${d.message}`);
      if (errors.length > 50) console.error(`  ... and ${errors.length - 50} more`);
      return { name: 'check', ok: false };
    }
    const warnings = report.diagnostics.filter((d) => d.severity !== 'error');
    if (warnings.length) console.log(`(${warnings.length} warnings, e.g. ${warnings[0]!.code}: ${warnings[0]!.message})`);

    const parse = await time(() => parseYaml(text, { schema: CORE_SCHEMA }));
    const load = await time(() => loadSpec(file));
    const check = await time(() => checkFile(file));
    const placed = await time(async () => formatHuman(await checkFile(file)));
    const rows = [
      ['(a) YAML parse (baseline)', parse],
      ['(b) loadSpec', load],
      ['(c) checkFile', check],
      [`(d) checkFile, ${report.diagnostics.length} findings placed`, placed],
    ] as const;
    console.log();
    console.log(textTable(
      ['stage', 'median', 'x baseline', 'first run', 'runs'],
      rows.map(([stage, t]) => [stage, ms(t.medianMs), `${(t.medianMs / parse.medianMs).toFixed(2)}x`, ms(t.firstMs), t.samplesMs.map((s) => s.toFixed(0)).join(' ')]),
    ));
    console.log();
    const verdict = placed.medianMs < TARGET_MS ? 'PASS' : 'MISS';
    console.log(`check on ${o.resources.toLocaleString('en')} resources x ${o.fields} fields, its findings placed: ${placed.medianMs.toFixed(0)} ms (target < ${TARGET_MS} ms): ${verdict}`);
    return { name: 'check', ok: true };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
