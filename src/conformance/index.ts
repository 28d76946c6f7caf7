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
import { Skip, TestContext, type CheckResult, type RunOptions } from './context.ts';
import { DataFactory } from './data.ts';
import { redactor } from './report/redact.ts';
import { checkAuthentication } from './parts/authentication.ts';
import { checkEndpoints } from './parts/endpoints.ts';
import { checkErrors } from './parts/errors.ts';
import { checkEvents } from './parts/events.ts';
import { checkLimits } from './parts/limits.ts';
import { checkResources } from './parts/resources.ts';
import { checkActionRules, checkResourceRules, checkTransitionRules } from './parts/rules.ts';
import { checkStates } from './parts/states.ts';
import { checkVersioning } from './parts/versioning.ts';
import { clientSources } from './sources.ts';

export type { CheckResult, EventRunOptions, Principal, RunOptions, SkipKind } from './context.ts';
export type { Exchange } from './http.ts';
export { DEFAULT_EVENT_TIMEOUT_MS } from './context.ts';
export { TransportError } from './http.ts';
export { formatHuman, formatJson, formatJunit } from './report/format.ts';
export { curlOf, redactor, REDACTED } from './report/redact.ts';

export interface ConformanceOptions extends RunOptions {
  /** Only these parts (default: all). */
  readonly only?: readonly PartName[];
  readonly skip?: readonly PartName[];
  /** Keep credentials in the report's exchanges (default: redacted, report/redact.ts). */
  readonly showSecrets?: boolean;
}

export interface ConformanceReport {
  readonly baseUrl: string;
  readonly seed: number;
  /** Set when there is nothing to check at all (the founding document). */
  readonly nothingToCheck?: string;
  readonly results: readonly CheckResult[];
  /**
   * `skip` is every check that did not run; of them, `notChecked` the run could not check
   * (it is incomplete), `notApplicable` the spec leaves nothing to check, `notAsked` the
   * options left out.
   */
  readonly counts: { readonly pass: number; readonly fail: number; readonly skip: number; readonly notChecked: number; readonly notApplicable: number; readonly notAsked: number };
  /** Per part that ran: its counts, its verdict, and what would let a run check what it did not. */
  readonly parts: readonly PartVerdict[];
  /** `pass`: nothing failed and everything asked for was checked; `incomplete`: nothing failed, something asked for was not checked. */
  readonly verdict: 'pass' | 'fail' | 'incomplete';
  /** Wall time of the run, waits included (ms). */
  readonly ms: number;
  /** Records the run made and could not remove, by resource: the spec has no delete for them, or the delete failed. */
  readonly left?: Readonly<Record<string, number>>;
  /** HTTP requests sent to the implementation (the receiver's and the stream's traffic aside). */
  readonly requests: number;
  /**
   * The 429s waited out before a retry, and the time waited (ms; each Retry-After and a 50 ms
   * margin): the spec's own quotas
   * (a create allowed 5 times a minute, say) can make a run long that the tester cannot
   * shorten, so the report says how much of `ms` they were.
   */
  readonly waited: { readonly count: number; readonly ms: number };
  /** Where the run sent from more than one client address (sources.ts): the others than the machine's default. */
  readonly sources?: readonly string[];
}

export interface PartVerdict {
  readonly part: PartName;
  readonly pass: number;
  readonly fail: number;
  readonly notChecked: number;
  readonly notApplicable: number;
  readonly notAsked: number;
  readonly verdict: 'pass' | 'fail' | 'incomplete';
  /** What would let a run check the rest, each named once. */
  readonly needs: readonly string[];
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
  const ctx = new TestContext(options, await clientSources(options.spec, options.baseUrl, options.clientAddresses));
  const { spec } = options;
  const nothing = nothingToCheck(spec);
  if (nothing) return report(ctx, options, started, nothing);
  const data = new DataFactory(ctx);
  let left: Record<string, number> = {};
  try {
    const taken = PART_NAMES.filter((p) => !(options.only?.length && !options.only.includes(p)));
    for (const [index, part] of taken.entries()) {
      options.onPart?.({ part, index, total: taken.length, done: false });
      await runPart(ctx, data, part, options);
      // A part's last rule check is done with its records too.
      data.parking.closeScene();
      options.onPart?.({ part, index, total: taken.length, done: true });
    }
  } finally {
    left = await data.cleanup();
  }
  return { ...report(ctx, options, started), left };
}

async function runPart(ctx: TestContext, data: DataFactory, part: PartName, options: ConformanceOptions): Promise<void> {
  if (options.skip?.includes(part)) return ctx.skip(part, part, `part ${part}`, 'skipped with --skip', { kind: 'not-asked' });
  const statement = options.spec.parts[part].statement;
  const runner = RUNNERS[part];
  if (statement === 'gap' && part !== 'errors') ctx.skip(part, part, `part ${part}`, `the spec does not show this part (a gap): there is nothing to check it against`, { kind: 'not-applicable' });
  else if (typeof runner === 'string') ctx.skip(part, part, `part ${part}`, runner, { kind: 'not-applicable' });
  else {
    try {
      await runner(ctx, data);
    } catch (error) {
      // A Skip is a check's outcome; one thrown between checks (the run's wait budget spent by
      // requests a part makes for several checks) ends the part's work, reported, not the run.
      if (!(error instanceof Skip)) throw error;
      ctx.skip(part, `${part}.rest`, `the rest of part ${part}`, error.message, { kind: error.kind, ...(error.needs !== undefined ? { needs: error.needs } : {}) });
    }
  }
}

/** A spec without resources and endpoints gives a tester nothing to check (the founding document's words). */
function nothingToCheck(spec: Spec): string | undefined {
  const gaps = (['resources', 'endpoints'] as const).filter((p) => spec.parts[p].statement !== 'given' || (p === 'endpoints' ? spec.endpoints.length === 0 : spec.resources.length === 0));
  if (!gaps.length) return undefined;
  return `A tester has nothing to check: the spec shows no ${gaps.join(' and no ')}.`;
}

function report(ctx: TestContext, options: ConformanceOptions, started: number, nothing?: string): ConformanceReport {
  const counts = tally(ctx.results);
  const parts: PartVerdict[] = [];
  for (const part of PART_NAMES) {
    const results = ctx.results.filter((r) => r.part === part);
    if (!results.length) continue;
    const c = tally(results);
    const needs = [...new Set(results.filter((r) => r.outcome === 'skip' && r.skipKind === 'not-checked' && r.needs).map((r) => r.needs as string))];
    parts.push({ part, pass: c.pass, fail: c.fail, notChecked: c.notChecked, notApplicable: c.notApplicable, notAsked: c.notAsked, verdict: verdictOf(c), needs });
  }
  const verdict = nothing ? 'fail' : verdictOf(counts);
  const redact = options.showSecrets ? undefined : redactor(options.principals);
  const results = redact ? ctx.results.map((r) => (r.exchange ? { ...r, exchange: redact.exchange(r.exchange) } : r)) : ctx.results;
  return { baseUrl: options.baseUrl, seed: options.seed, ...(nothing ? { nothingToCheck: nothing } : {}), results, counts, parts, verdict, ms: Math.round(performance.now() - started), requests: ctx.client.log.length, waited: { ...ctx.client.waited }, ...(ctx.sources.length > 1 ? { sources: ctx.sources.filter((a): a is string => a !== undefined) } : {}) };
}

function tally(results: readonly CheckResult[]): ConformanceReport['counts'] {
  const counts = { pass: 0, fail: 0, skip: 0, notChecked: 0, notApplicable: 0, notAsked: 0 };
  for (const r of results) {
    counts[r.outcome]++;
    if (r.outcome !== 'skip') continue;
    if (r.skipKind === 'not-applicable') counts.notApplicable++;
    else if (r.skipKind === 'not-asked') counts.notAsked++;
    else counts.notChecked++;
  }
  return counts;
}

function verdictOf(c: ConformanceReport['counts']): 'pass' | 'fail' | 'incomplete' {
  return c.fail ? 'fail' : c.notChecked ? 'incomplete' : 'pass';
}
