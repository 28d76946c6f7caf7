/**
 * What every part's checks are given: the spec, the HTTP client, the principals to act as,
 * the version to speak, the inputs' seed, and the recorder of results. Judged by the spec
 * alone: nothing here reads the reference service's code.
 */
import { errorShape } from '../spec/conventions/errors.ts';
import { isPlain } from '../spec/conventions/paths.ts';
import type { Endpoint, ErrorShape, Field, Location, Resource, Spec } from '../spec/model.ts';
import type { PartName } from '../spec/parts.ts';
import { resolveSituations, type ResolvedSituation, type Situation } from '../spec/http-errors.ts';
import { Draw } from './generate.ts';
import { HttpClient, type Exchange, type RequestOptions } from './http.ts';
import { envelopedRequest, unenvelopedAnswer } from './envelope.ts';
import { QuotaLedger } from './quota.ts';
import { parentParams } from '../spec/conventions/paths.ts';
import type { ClientAddresses } from './sources.ts';

/** What ctx.call tells the client of a request, kept with a write the run stopped waiting for (http.ts LateWrite). */
export interface LateAbout {
  readonly endpoint: Endpoint | undefined;
  readonly as: Principal | undefined;
}

/** Someone the tester acts as: the headers that authenticate them, and the scopes they hold. */
export interface Principal {
  readonly name: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The id the implementation knows them by, when the tester is told it (managed `created-by` fields are checked against it). */
  readonly id?: string;
  /** Undefined: assumed to hold every scope the spec declares. */
  readonly scopes?: readonly string[];
}

export type Outcome = 'pass' | 'fail' | 'skip';

/**
 * Why a check did not run, which decides the verdict. `not-checked`: the run was asked to
 * check it and could not (a credential, a second principal, a callback host, the service's
 * quota, the implementation's own answer stood in the way): the run is incomplete, and
 * fails unless skips are allowed. `not-applicable`: the spec states nothing this check could
 * hold an implementation to (no rate limit, a gap, no endpoint for a transition).
 * `not-asked`: left out by the options (--skip, an opt-in not included).
 */
export type SkipKind = 'not-checked' | 'not-applicable' | 'not-asked';

export interface SkipOptions {
  readonly kind?: SkipKind;
  /** What would let the run check it: a credential with which scopes, a second principal, a callback host, an option. */
  readonly needs?: string;
}

export interface CheckResult {
  readonly part: PartName;
  readonly id: string;
  readonly title: string;
  readonly outcome: Outcome;
  /** The rule of the spec held to: where it stands, and what it says. */
  readonly rule?: { readonly pointer: string; readonly location?: Location; readonly text: string };
  /** Why it failed, or why it was skipped. */
  readonly message?: string;
  /** Of a skip: whether the run could not check it, or there was nothing to check (default not-checked). */
  readonly skipKind?: SkipKind;
  /** Of a check not checked: what would let a run check it. */
  readonly needs?: string;
  readonly exchange?: Exchange;
}

/** A check that failed: thrown inside a check body, recorded by `check()`. */
export class Failure extends Error {
  readonly exchange?: Exchange;
  /** Told when the failure is recorded as a check's result (a caller may turn it into a skip instead). */
  onRecorded?: () => void;
  constructor(message: string, exchange?: Exchange) {
    super(message);
    this.name = 'Failure';
    this.exchange = exchange;
  }
}

/** Thrown inside a check body when what it needs is missing: the check is skipped, not failed. */
export class Skip extends Error {
  readonly kind: SkipKind;
  readonly needs?: string;
  constructor(message: string, options: SkipOptions = {}) {
    super(message);
    this.name = 'Skip';
    this.kind = options.kind ?? 'not-checked';
    if (options.needs !== undefined) this.needs = options.needs;
  }
}

/** A Skip for what the spec itself leaves nothing to check against. */
export class NotApplicable extends Skip {
  constructor(message: string) {
    super(message, { kind: 'not-applicable' });
  }
}

export interface RunOptions {
  readonly spec: Spec;
  readonly baseUrl: string;
  readonly principals: readonly Principal[];
  readonly seed: number;
  readonly include?: readonly string[];
  readonly timeoutMs?: number;
  /** How long to wait out a rate limit before retrying a request once (ms). */
  readonly maxWaitMs?: number;
  /**
   * The most the whole run may spend waiting for rate-limit windows (ms; default no bound).
   * A check that would need more is not checked, naming the quota: a spec that allows 5
   * creates a minute cannot be checked in full in a minute, and the run says so instead.
   */
  readonly waitBudgetMs?: number;
  /**
   * The client addresses to send from (sources.ts): `auto` (default) several loopback
   * addresses where the service is on 127.0.0.1 and the spec counts a limit per address,
   * `none` the machine's one, or a list.
   */
  readonly clientAddresses?: ClientAddresses;
  readonly onWait?: (ms: number, url: string) => void;
  /** How to wait out a rate limit (default: a timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** The implementation's clock, for the checks of the times it writes (default: this machine's). Tests that move its clock instead of waiting (`sleep`) pass it. */
  readonly now?: () => number;
  readonly onResult?: (result: CheckResult) => void;
  /** Told when a part starts and when it ends (its index among the parts the run will take). */
  readonly onPart?: (event: { readonly part: PartName; readonly index: number; readonly total: number; readonly done: boolean }) => void;
  /** Told of every request to the implementation and its response, as each completes. */
  readonly onExchange?: (exchange: Exchange) => void;
  /** Part 6: the webhook receiver and how long to wait for an event. */
  readonly events?: EventRunOptions;
}

/** How the events part listens (docs/events.md is the convention it checks). */
export interface EventRunOptions {
  /** How long an event may take to arrive after the change that triggers it (ms; default 10 s). */
  readonly timeoutMs?: number;
  /** The host name put in the receiver's URL when the implementation runs elsewhere; the receiver then listens on every interface. */
  readonly callbackHost?: string;
  /** The receiver's port (default: any free one). */
  readonly callbackPort?: number;
  /** With `subscriptions: config`: the secret of the subscription the operator registered for the receiver. */
  readonly webhookSecret?: string;
}

/** The tester's own time-out for an event to arrive; the spec's webhook timeout is the receiver's, not this. */
export const DEFAULT_EVENT_TIMEOUT_MS = 10_000;

/** Requests another principal with the same scopes may make in a spent principal's stead (TestContext.standIn). */
const STAND_IN: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE']);

export class TestContext {
  readonly spec: Spec;
  readonly client: HttpClient;
  readonly principals: readonly Principal[];
  readonly draw: Draw;
  readonly include: ReadonlySet<string>;
  readonly results: CheckResult[] = [];
  readonly errorShape: ErrorShape;
  readonly resolve: (situation: Situation) => ResolvedSituation;
  /** The version requests are made in, unless a check says otherwise. */
  readonly version?: string;
  readonly events: EventRunOptions;
  /** Epoch ms on the implementation's clock (see RunOptions.now). */
  readonly now: () => number;
  /** The implementation's rate limits as the run has spent them (quota.ts). */
  readonly quota: QuotaLedger;
  readonly waitBudgetMs: number;
  readonly #onResult?: (result: CheckResult) => void;

  /** The client addresses the run sends from; `undefined` is the machine's default (sources.ts). */
  readonly sources: readonly (string | undefined)[];

  constructor(options: RunOptions, sources: readonly (string | undefined)[] = [undefined]) {
    this.sources = sources;
    this.spec = options.spec;
    this.client = new HttpClient(options.baseUrl, options.timeoutMs, options.maxWaitMs);
    if (options.onWait) this.client.onWait = options.onWait;
    if (options.sleep) this.client.sleep = options.sleep;
    if (options.onExchange) this.client.onExchange = options.onExchange;
    this.principals = options.principals;
    this.draw = new Draw(options.seed);
    this.include = new Set(options.include ?? []);
    this.errorShape = errorShape(options.spec);
    this.resolve = resolveSituations(options.spec);
    this.version = workingVersion(options.spec);
    this.events = options.events ?? {};
    this.now = options.now ?? Date.now;
    this.quota = new QuotaLedger(options.spec, this.now, sources.length);
    this.waitBudgetMs = options.waitBudgetMs ?? Infinity;
    this.#onResult = options.onResult;
  }

  get main(): Principal | undefined {
    return this.principals[0];
  }

  resource(name: string): Resource | undefined {
    return this.spec.resources.find((r) => r.name === name);
  }

  /**
   * The endpoint of an operation: the plain one (its own `{id}` at most) where there is one,
   * as the checks that address a record by its id need; else a nested or singleton one.
   */
  endpoint(resource: string, operation: string, transition?: string): Endpoint | undefined {
    const all = this.spec.endpoints.filter((e) => e.resource === resource && e.operation === operation && (transition === undefined || e.transition === transition));
    return all.find(isPlain) ?? all[0];
  }

  /** Of several endpoints that would serve a check equally, the one whose quota the run can best spare (the first of equals). */
  roomiest(endpoints: readonly Endpoint[]): Endpoint | undefined {
    const room = (e: Endpoint) => this.quota.left(e, this.principalFor(e)?.name);
    return endpoints.reduce<Endpoint | undefined>((best, e) => (best === undefined || room(e) > room(best) ? e : best), undefined);
  }

  /** Whether a principal holds what an endpoint needs. */
  may(principal: Principal | undefined, endpoint: Endpoint): boolean {
    const auth = endpoint.auth;
    if (!auth || auth.public) return true;
    if (!principal) return false;
    return principal.scopes === undefined || auth.scopes.every((s) => principal.scopes?.includes(s));
  }

  /** The first principal that may call every one of the endpoints. */
  principalFor(...endpoints: Endpoint[]): Principal | undefined {
    if (endpoints.every((e) => !e.auth || e.auth.public)) return this.main;
    return this.principals.find((p) => endpoints.every((e) => this.may(p, e)));
  }

  /** The skip of a check no principal given may make: names the scopes a credential would need. */
  noPrincipal(endpoint: Endpoint): Skip {
    const scopes = endpoint.auth?.scopes ?? [];
    return new Skip(`no principal given may call ${endpoint.id}`, { needs: `a credential${scopes.length ? ` holding ${scopes.join(', ')}` : ''} (--credentials or --header)` });
  }

  /**
   * A request in the working version (or the one given), as a principal (or anonymously with
   * null). To an endpoint that needs credentials, with none (no principal given may call it), it
   * is not sent: the check is not checked, naming the credential, as a 401 shows nothing of what
   * it asks; `anonymous` sends it so on purpose (part 5's checks of that 401).
   */
  async call(method: string, path: string, options: RequestOptions & { as?: Principal | null; version?: string | null; retry?: boolean; oneAddress?: boolean; anonymous?: boolean } = {}): Promise<Exchange> {
    const endpoint = this.quota.endpointOf(method, path);
    if (endpoint?.auth && !endpoint.auth.public && !options.anonymous && !(options.as === undefined ? this.main : options.as)) throw this.noPrincipal(endpoint);
    if (endpoint && options.as !== null && options.retry !== false && STAND_IN.has(method)) options = { ...options, as: this.standIn(endpoint, options.as ?? this.main) };
    const { url, headers } = this.address(path, options);
    const who = (options.as === undefined ? this.main : options.as ?? undefined)?.name;
    // The window cannot admit it: wait for the next one rather than be refused (the rate-limit check itself sends regardless).
    if (endpoint && options.retry !== false) {
      const ms = this.quota.waitFor(endpoint, who);
      if (ms > 0 && this.client.waited.ms + ms > this.waitBudgetMs) throw this.#overBudget(endpoint, ms);
      if (ms > 0 && ms <= this.client.maxWaitMs) await this.client.wait(ms + 50, `${this.client.baseUrl}${url}`);
    }
    const about: LateAbout = { endpoint, as: options.as === undefined ? this.main : options.as ?? undefined };
    // Of a limit counted by client address, the source with the most left; the rate-limit check,
    // and requests a promise per client address ties together (`oneAddress`: idempotency keys
    // per address), send from the first.
    const source = endpoint && options.retry !== false && !options.oneAddress ? this.quota.source(endpoint, who) : 0;
    const from = this.sources[source];
    // Checks speak of the record; its envelope, where the spec declares one, is put on and taken off here.
    const sent = envelopedRequest(this.spec, endpoint, options);
    const ex = unenvelopedAnswer(this.spec, endpoint, await this.client.send(method, url, { ...sent, headers: { ...headers, ...(options.headers ?? {}) }, about, ...(from !== undefined ? { from } : {}) }, this.waitBudgetMs), options);
    if (endpoint) this.quota.spent(endpoint, who, ex.response.status, ex.response.headers, source);
    // A 429 the run could not wait out is the quota's answer, not a finding of the check that met it.
    if (ex.response.status === 429 && options.retry !== false && endpoint) throw this.#overBudget(endpoint, Number(ex.response.headers['retry-after']) * 1000 || 0);
    return ex;
  }

  /**
   * Who reads or deletes for a principal that has used half its window of the endpoint's limit:
   * another principal with the same scopes and more left, where the records are everyone's
   * alike (no owner, no visibility through a parent, no parent in the path), so the run need not wait out the window
   * (helpdesk: 300 requests a minute per credential, which a run of 650 requests in a few
   * seconds meets) and the rest is kept for what only the principal may do.
   * Not a create or a change: those may record who made them (`created-by`, `updated-by`); a
   * read shows the same to either, and a deleted record keeps nothing.
   */
  standIn(endpoint: Endpoint, as: Principal | undefined): Principal | undefined {
    const policy = this.quota.policyOf(endpoint);
    if (!as || !policy) return as;
    // Half the principal's window is kept for what only it may do (its own records' reads and deletes, its writes).
    const left = this.quota.left(endpoint, as.name);
    if (left >= policy.limit / 2) return as;
    // Only a principal given to the run (not one a check made up: mangled credentials), and only
    // where nothing decides who sees the record: no owner, no visibility, no parent in the path
    // (a nested path answers 404 to whoever cannot see the parent).
    if (!this.principals.includes(as)) return as;
    const resource = this.resource(endpoint.resource);
    if (!resource || resource.owned || resource.visibility || parentParams(endpoint).length) return as;
    const same = (p: Principal) => p.scopes === as.scopes || (p.scopes !== undefined && as.scopes !== undefined && p.scopes.length === as.scopes.length && p.scopes.every((s) => as.scopes!.includes(s)));
    const other = this.principals.filter((p) => p !== as && same(p)).reduce<Principal | undefined>((best, p) => (this.quota.left(endpoint, p.name) > (best ? this.quota.left(endpoint, best.name) : left) ? p : best), undefined);
    return other ?? as;
  }

  #overBudget(endpoint: Endpoint, ms: number): Skip {
    const policy = this.quota.policyOf(endpoint);
    const quota = policy ? `${policy.limit} requests per ${policy.windowMs / 1000} s per ${policy.scope}` : 'its quota';
    const budget = Number.isFinite(this.waitBudgetMs) ? `the run's wait budget (${Math.round(this.waitBudgetMs / 1000)} s)` : `--max-wait (${Math.round(this.client.maxWaitMs / 1000)} s)`;
    return new Skip(`${endpoint.id} allows ${quota}; the window is spent, and waiting ${Math.ceil(ms / 1000)} s for the next would pass ${budget}`, { needs: `a longer --wait-budget (each further window of ${endpoint.id} costs ${Math.ceil((policy?.windowMs ?? ms) / 1000)} s) or a larger quota` });
  }

  /** The path (relative to the base URL) and headers of a request in a version, as a principal: the credentials and the version selector. */
  address(path: string, options: { as?: Principal | null; version?: string | null } = {}): { url: string; headers: Record<string, string> } {
    const as = options.as === undefined ? this.main : options.as ?? undefined;
    const version = options.version === null ? undefined : options.version ?? this.version;
    const select = this.spec.versioning.select;
    let url = path;
    const headers: Record<string, string> = { ...(as?.headers ?? {}) };
    if (version !== undefined && select) {
      if (select.by === 'header') headers[select.name] = version;
      else if (select.by === 'query') url = `${path}${path.includes('?') ? '&' : '?'}${encodeURIComponent(select.name)}=${encodeURIComponent(version)}`;
      else url = `${select.prefix.replace('{version}', encodeURIComponent(version))}${path}`;
    }
    return { url, headers };
  }

  /** Fields as the working version (or the one given) sees them: since <= version <= until, declared order. */
  fieldsOf(resource: Resource, version: string | undefined = this.version): Field[] {
    return resource.fields.filter((f) => this.inVersion(f, version));
  }

  /** Whether something with since/until (a field, an event) exists in a version (inclusive bounds; no version: everything). */
  inVersion(item: { readonly since?: string; readonly until?: string }, version: string | undefined = this.version): boolean {
    if (version === undefined) return true;
    const order = new Map(this.spec.versioning.versions.map((v, i) => [v.name, i]));
    const at = order.get(version);
    if (at === undefined) return true;
    return (item.since === undefined || (order.get(item.since) ?? 0) <= at) && (item.until === undefined || (order.get(item.until) ?? Infinity) >= at);
  }

  /**
   * Runs one check: passes unless the body throws a Failure (failed) or a Skip (skipped).
   * Anything else thrown (the implementation unreachable) ends the run.
   */
  async check(part: PartName, id: string, title: string, rule: { pointer: string; text: string } | undefined, body: () => Promise<void>): Promise<boolean> {
    let result: CheckResult;
    const located = rule ? { ...rule, location: this.spec.source.locate(rule.pointer) } : undefined;
    try {
      await body();
      result = { part, id, title, outcome: 'pass', ...(located ? { rule: located } : {}) };
    } catch (error) {
      if (error instanceof Skip) result = { part, id, title, outcome: 'skip', message: error.message, skipKind: error.kind, ...(error.needs ? { needs: error.needs } : {}), ...(located ? { rule: located } : {}) };
      else if (error instanceof Failure) {
        result = { part, id, title, outcome: 'fail', message: error.message, ...(located ? { rule: located } : {}), ...(error.exchange ? { exchange: error.exchange } : {}) };
        error.onRecorded?.();
      } else throw error;
    }
    this.results.push(result);
    this.#onResult?.(result);
    return result.outcome === 'pass';
  }

  /**
   * An error answered with the right status in the wrong shape: a failure of part 7, once
   * per code (the first exchange shown), whichever check met it; that check goes on.
   */
  errorShapeFinding(code: string, message: string, exchange: Exchange, title = `errors with code '${code}' are answered in the declared shape`): void {
    const id = `error-shape.${code}`;
    if (this.results.some((r) => r.id === id && r.part === 'errors')) return;
    const pointer = this.spec.errors.shape?.pointer;
    const rule = pointer ? { pointer, text: 'the declared error shape', location: this.spec.source.locate(pointer) } : undefined;
    const result: CheckResult = { part: 'errors', id, title, outcome: 'fail', message, exchange, ...(rule ? { rule } : {}) };
    this.results.push(result);
    this.#onResult?.(result);
  }

  /**
   * A success answered with a status the endpoint does not declare (200 for a create's 201),
   * met where a check only needed what it made: a failure of part 4, once per endpoint,
   * whichever check met it; that check goes on with the record.
   */
  successStatusFinding(endpoint: Endpoint, failure: Failure): void {
    const id = `${endpoint.id}.success-status`;
    if (this.results.some((r) => r.id === id && r.part === 'endpoints')) return;
    const rule = { pointer: endpoint.pointer, text: `${endpoint.id}: its declared responses`, location: this.spec.source.locate(endpoint.pointer) };
    const result: CheckResult = { part: 'endpoints', id, title: `${endpoint.id} answers a success status it declares`, outcome: 'fail', message: failure.message, rule, ...(failure.exchange ? { exchange: failure.exchange } : {}) };
    this.results.push(result);
    this.#onResult?.(result);
  }

  /**
   * An endpoint answering its successes in a content type other than JSON: part 4's finding,
   * once, whichever check met it first (a list in text/plain showed as three failures under
   * the delete, the walk and the page size); the checks that met it are not checked, naming it.
   */
  contentTypeFinding(endpoint: Endpoint, failure: Failure): Skip {
    const id = `${endpoint.id}.content-type`;
    if (!this.results.some((r) => r.id === id && r.part === 'endpoints')) {
      const rule = { pointer: endpoint.pointer, text: `${endpoint.id}: its declared responses, in JSON`, location: this.spec.source.locate(endpoint.pointer) };
      const result: CheckResult = { part: 'endpoints', id, title: `${endpoint.id} answers its successes in JSON`, outcome: 'fail', message: failure.message, rule, ...(failure.exchange ? { exchange: failure.exchange } : {}) };
      this.results.push(result);
      this.#onResult?.(result);
    }
    return new Skip(`not checked: ${failure.message} (reported under part 4, '${endpoint.id} answers its successes in JSON')`);
  }

  /** Records a check that did not run; by default as not checked (the run is incomplete), else as the options say. */
  skip(part: PartName, id: string, title: string, why: string, options: SkipOptions = {}): void {
    const result: CheckResult = { part, id, title, outcome: 'skip', message: why, skipKind: options.kind ?? 'not-checked', ...(options.needs ? { needs: options.needs } : {}) };
    this.results.push(result);
    this.#onResult?.(result);
  }
}

/** The version the tester speaks by default: the declared default, else the current one, else none. */
function workingVersion(spec: Spec): string | undefined {
  if (!spec.versioning.select || spec.versioning.versions.length === 0) return undefined;
  return spec.versioning.default ?? spec.versioning.versions.find((v) => v.status === 'current')?.name ?? spec.versioning.versions.find((v) => v.status !== 'retired')?.name;
}
