/**
 * The conformance tester: checks any implementation at a base URL against every part of a
 * spec, judged by the spec alone (nothing here imports the reference service). Parts run in
 * the spec's order; each check is a value (src/conformance/context.ts CheckResult); what
 * the run created is deleted at the end where the spec has delete endpoints.
 *
 *   purpose         nothing to check against an implementation: it is for people
 *   resources       parts/resources.ts     states          parts/states.ts
 *   domain rules    parts/rules.ts: uniqueness, record rules, managed fields, guards,
 *                   effects and delete behaviours, each in the part it is written in
 *   endpoints       parts/endpoints.ts     authentication  parts/authentication.ts
 *   events          parts/events.ts (docs/events.md): webhooks to the tester's receiver
 *                   (receiver.ts, signatures verified in signature.ts) and the stream (stream.ts)
 *   errors          parts/errors.ts, and every error met anywhere (expect.ts)
 *   limits          parts/limits.ts        versioning      parts/versioning.ts
 */
import type { Spec } from '../spec/model.ts';
import { PART_NAMES, type PartName } from '../spec/parts.ts';
import { TestContext, type CheckResult, type RunOptions } from './context.ts';
import { DataFactory } from './data.ts';
import { checkAuthentication } from './parts/authentication.ts';
import { checkEndpoints } from './parts/endpoints.ts';
import { checkErrors } from './parts/errors.ts';
import { checkEvents } from './parts/events.ts';
import { checkLimits } from './parts/limits.ts';
import { checkResources } from './parts/resources.ts';
import { checkActionRules, checkResourceRules, checkTransitionRules } from './parts/rules.ts';
import { checkStates } from './parts/states.ts';
import { checkVersioning } from './parts/versioning.ts';

export type { CheckResult, EventRunOptions, Principal, RunOptions } from './context.ts';
export type { Exchange } from './http.ts';
export { DEFAULT_EVENT_TIMEOUT_MS } from './context.ts';
export { TransportError } from './http.ts';
export { formatHuman, formatJson, formatJunit } from './report/format.ts';

export interface ConformanceOptions extends RunOptions {
  /** Only these parts (default: all). */
  readonly only?: readonly PartName[];
  readonly skip?: readonly PartName[];
}

export interface ConformanceReport {
  readonly baseUrl: string;
  readonly seed: number;
  /** Set when there is nothing to check at all (the founding document). */
  readonly nothingToCheck?: string;
  readonly results: readonly CheckResult[];
  readonly counts: { readonly pass: number; readonly fail: number; readonly skip: number };
  /** Wall time of the run, waits included (ms). */
  readonly ms: number;
  /** HTTP requests sent to the implementation (the receiver's and the stream's traffic aside). */
  readonly requests: number;
  /**
   * The 429s waited out before a retry, and the time waited (ms; each Retry-After and a 50 ms
   * margin): the spec's own quotas
   * (a create allowed 5 times a minute, say) can make a run long that the tester cannot
   * shorten, so the report says how much of `ms` they were.
   */
  readonly waited: { readonly count: number; readonly ms: number };
}

type PartRunner = (ctx: TestContext, data: DataFactory) => Promise<void>;

const RUNNERS: Readonly<Record<PartName, PartRunner | string>> = {
  purpose: 'the purpose is for people; an implementation has nothing to show of it',
  // Each part's domain rules (guards, effects, uniqueness…; parts/rules.ts) after its own checks.
  resources: async (ctx, data) => (await checkResources(ctx, data), await checkResourceRules(ctx, data)),
  states: async (ctx, data) => (await checkStates(ctx, data), await checkTransitionRules(ctx, data)),
  endpoints: async (ctx, data) => (await checkEndpoints(ctx, data), await checkActionRules(ctx, data)),
  authentication: checkAuthentication,
  events: checkEvents,
  errors: checkErrors,
  limits: checkLimits,
  versioning: checkVersioning,
};

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const started = performance.now();
  const ctx = new TestContext(options);
  const { spec } = options;
  const nothing = nothingToCheck(spec);
  if (nothing) return report(ctx, options, started, nothing);
  const data = new DataFactory(ctx);
  try {
    for (const part of PART_NAMES) {
      if (options.only?.length && !options.only.includes(part)) continue;
      if (options.skip?.includes(part)) {
        ctx.skip(part, part, `part ${part}`, 'skipped with --skip');
        continue;
      }
      const statement = spec.parts[part].statement;
      const runner = RUNNERS[part];
      if (statement === 'gap' && part !== 'errors') ctx.skip(part, part, `part ${part}`, `the spec does not show this part (a gap): there is nothing to check it against`);
      else if (typeof runner === 'string') ctx.skip(part, part, `part ${part}`, runner);
      else await runner(ctx, data);
    }
  } finally {
    await data.cleanup();
  }
  return report(ctx, options, started);
}

/** A spec without resources and endpoints gives a tester nothing to check (the founding document's words). */
function nothingToCheck(spec: Spec): string | undefined {
  const gaps = (['resources', 'endpoints'] as const).filter((p) => spec.parts[p].statement !== 'given' || (p === 'endpoints' ? spec.endpoints.length === 0 : spec.resources.length === 0));
  if (!gaps.length) return undefined;
  return `A tester has nothing to check: the spec shows no ${gaps.join(' and no ')}.`;
}

function report(ctx: TestContext, options: ConformanceOptions, started: number, nothing?: string): ConformanceReport {
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const r of ctx.results) counts[r.outcome]++;
  return { baseUrl: options.baseUrl, seed: options.seed, ...(nothing ? { nothingToCheck: nothing } : {}), results: ctx.results, counts, ms: Math.round(performance.now() - started), requests: ctx.client.log.length, waited: { ...ctx.client.waited } };
}
