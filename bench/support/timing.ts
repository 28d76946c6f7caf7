/** Timing helpers shared by the benches: warm up, then the median of several runs. */
import { performance } from 'node:perf_hooks';

export interface Timing {
  /** The warm-up run: what a one-shot CLI call pays (caches cold, compilers not yet run). */
  readonly firstMs: number;
  readonly medianMs: number;
  readonly samplesMs: readonly number[];
}

export async function time(fn: () => unknown, options: { warmups?: number; runs?: number } = {}): Promise<Timing> {
  const { warmups = 1, runs = 5 } = options;
  let firstMs = Number.NaN;
  for (let i = 0; i < warmups; i++) {
    const start = performance.now();
    await fn();
    if (i === 0) firstMs = performance.now() - start;
  }
  const samplesMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samplesMs.push(performance.now() - start);
  }
  return { firstMs, medianMs: median(samplesMs), samplesMs };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A plain text table, columns padded; numbers right-aligned. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const numeric = header.map((_, i) => rows.every((r) => /^([\d.,x ]+(ms|µs| %)?|-)$/.test(r[i]!)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
