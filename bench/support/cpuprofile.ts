/**
 * Where the time goes in a V8 CPU profile (`node --cpu-prof`): self time by function, by
 * place (the project's modules, each package, node internals, GC), and total (inclusive)
 * time of the project's own functions. The serve bench prints it for the svcspec server
 * when SVCSPEC_BENCH_PROFILE is set; by hand:
 *
 *   npx node bench/support/cpuprofile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { textTable } from './timing.ts';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = new URL('../../', import.meta.url).href;

/** `src/serve/resources.ts`, `fastify`, `node:internal/...`, or a pseudo-frame like `(garbage collector)`. */
export function placeOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const local = url.startsWith(ROOT) ? url.slice(ROOT.length) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(local);
  if (pkg) return pkg[1]!;
  return local;
}

function nameOf(frame: CallFrame): string {
  const fn = frame.functionName || '(anonymous)';
  if (!frame.url) return fn;
  return `${fn}  ${placeOf(frame)}:${frame.lineNumber + 1}`;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly idleMs: number;
  readonly text: string;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const places = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    const leaf = byId.get(profile.samples[i]!);
    if (!leaf) continue;
    total += us;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const key = nameOf(leaf.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
    const place = placeOf(leaf.callFrame);
    places.set(place, (places.get(place) ?? 0) + us);
    // Inclusive time of the project's own functions, each counted once per sample.
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (!placeOf(frame).startsWith('src/')) continue;
      const k = nameOf(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`;
  const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
  const rank = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  const text = [
    `profile ${file}: ${ms(total)} sampled, ${ms(idle)} idle, ${ms(busy)} busy (percentages of busy time)`,
    '',
    'self time by place',
    textTable(['place', 'self', 'share'], rank(places, 15).map(([k, v]) => [k, ms(v), pct(v)])),
    '',
    `top ${top} functions by self time`,
    textTable(['function  place:line', 'self', 'share'], rank(self, top).map(([k, v]) => [k, ms(v), pct(v)])),
    '',
    `top ${top} functions of src/ by total time (their callees included)`,
    textTable(['function  place:line', 'total', 'share'], rank(inclusive, top).map(([k, v]) => [k, ms(v), pct(v)])),
  ].join('\n');
  return { totalMs: total / 1000, idleMs: idle / 1000, text };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: cpuprofile.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(summarizeProfile(file, top ? Number(top) : 25).text);
}
