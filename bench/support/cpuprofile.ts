/**
 * Where the time goes in a V8 CPU profile (`node --cpu-prof`) of a server: self time by
 * function, by place (the project's modules, each package, node internals, GC), and total
 * (inclusive) time of the project's own functions. Start-up (everything before the first
 * HTTP request) is left out; given the number of requests served, times are per request.
 * The profiler samples the main thread whenever it is not idle: time blocked in a
 * synchronous call (SQLite's fsync at COMMIT) counts as busy.
 * The serve bench prints it for the svcspec servers when SVCSPEC_BENCH_PROFILE is set; by hand:
 *
 *   npx node bench/support/cpuprofile.ts <file.cpuprofile> [requests served] [top]
 *
 * Self time of `writeUtf8String` is the socket write (one write(2) per response, kernel
 * loopback TCP included); sampling attributes it unevenly between processes, so compare
 * it with care.
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
  readonly startupMs: number;
  readonly busyMs: number;
  readonly text: string;
}

export interface SummaryOptions {
  /** Requests the process served: times are then given per request. */
  readonly requests?: number;
  readonly top?: number;
}

/** An HTTP server taking a request (node's, or the proxy's wire core reading one): its first sample ends the start-up. */
const isRequest = (frame: CallFrame) => (frame.functionName === 'parserOnIncoming' && frame.url === 'node:_http_server') || (frame.url.endsWith('/src/proxy/wire.ts') && /request/i.test(frame.functionName));

export function summarizeProfile(file: string, options: SummaryOptions = {}): ProfileSummary {
  const top = options.top ?? 25;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const self = new Map<string, number>();
  const places = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const stackOf = (leaf: ProfileNode): CallFrame[] => {
    const frames: CallFrame[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) frames.push(byId.get(id)!.callFrame);
    return frames;
  };
  let startup = 0;
  let serving = false;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    const leaf = byId.get(profile.samples[i]!);
    if (!leaf) continue;
    if (leaf.callFrame.functionName === '(idle)') continue;
    const frames = stackOf(leaf);
    if (!serving && !frames.some(isRequest)) {
      startup += us;
      continue;
    }
    serving = true;
    busy += us;
    const key = nameOf(leaf.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
    const place = placeOf(leaf.callFrame);
    places.set(place, (places.get(place) ?? 0) + us);
    // Inclusive time of the project's own functions, each counted once per sample.
    const seen = new Set<string>();
    for (const frame of frames) {
      if (!placeOf(frame).startsWith('src/')) continue;
      const k = nameOf(frame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`;
  const perRequest = options.requests ? options.requests : undefined;
  const unit = perRequest ? 'µs/request' : 'ms';
  const amount = (us: number) => (perRequest ? `${(us / perRequest).toFixed(1)} µs` : `${(us / 1000).toFixed(0)} ms`);
  const rank = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  const text = [
    `profile ${file}: start-up ${(startup / 1000).toFixed(0)} ms left out; serving: the main thread busy ${(busy / 1000).toFixed(0)} ms (blocking calls such as fsync included)${perRequest ? ` over ${perRequest.toLocaleString('en')} requests, ${(busy / perRequest).toFixed(0)} µs per request` : ''}`,
    '',
    `self time by place (${unit})`,
    textTable(['place', 'self', 'share'], rank(places, 15).map(([k, v]) => [k, amount(v), pct(v)])),
    '',
    `top ${top} functions by self time (${unit})`,
    textTable(['function  place:line', 'self', 'share'], rank(self, top).map(([k, v]) => [k, amount(v), pct(v)])),
    '',
    `top ${top} functions of src/ by total time, their callees included (${unit})`,
    textTable(['function  place:line', 'total', 'share'], rank(inclusive, top).map(([k, v]) => [k, amount(v), pct(v)])),
  ].join('\n');
  return { startupMs: startup / 1000, busyMs: busy / 1000, text };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, requests, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: cpuprofile.ts <file.cpuprofile> [requests served] [top]');
    process.exit(2);
  }
  console.log(summarizeProfile(file, { ...(requests ? { requests: Number(requests) } : {}), top: top ? Number(top) : 25 }).text);
}
