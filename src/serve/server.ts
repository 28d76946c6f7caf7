/**
 * Starting the reference service for real: load the spec, open the store, build the app,
 * listen, and close everything cleanly. The CLI's `serve` command only calls this.
 */
import { dirname, join, basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadSpec, readSpec } from '../load/index.ts';
import { sectionCache } from '../load/sections.ts';
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { Endpoint, Spec } from '../spec/model.ts';
import { describeTarget, isDatabaseUrl, openStore } from '../store/open.ts';
import type { PostgresStore } from '../store/postgres.ts';
import { StoreUnavailableError, type Store } from '../store/store.ts';
import { memoryCounter, type RateCounter } from './limits/rate.ts';
import { postgresCounter, redisCounter } from './limits/shared.ts';
import type { ActionHandlers } from './actions.ts';
import { createApp, DOCS_PATH } from './app.ts';
import { SetupError } from './errors.ts';
import { readiness, type Readiness } from './readiness.ts';
import { cachedReadiness } from './readiness-cache.ts';
import { settleNextTick } from './tick-warm-up.ts';
import { performedByReference } from '../spec/conventions/endpoints.ts';

export interface ServerOptions {
  readonly file: string;
  readonly port?: number;
  readonly host?: string;
  /**
   * A SQLite file, ':memory:', or a PostgreSQL URL (postgres://…?schema=name); default:
   * `<spec name>.db` next to the spec. The CLI fills it from --db, else SVCSPEC_DATABASE_URL.
   */
  readonly db?: string;
  readonly durability?: 'full' | 'normal';
  /** A Redis URL: rate limits are counted there, shared by every instance (./limits/shared.ts). */
  readonly redis?: string;
  readonly quiet?: boolean;
  /** Let webhooks go to loopback and private addresses (local development, tests): docs/events.md. */
  readonly allowPrivateWebhooks?: boolean;
  /** A module whose default (or `handlers`) export maps action endpoint ids to their handlers (src/serve/actions.ts). */
  readonly handlers?: string;
}

export type StartResult =
  | { readonly ok: true; readonly url: string; readonly spec: Spec; readonly db: string; readonly store: Store; /** Where rate limits are counted. */ readonly limits: string; readonly readiness: Readiness; readonly app: FastifyInstance; readonly docs?: string; readonly handlers?: ActionHandlers; close(): Promise<void> }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[]; readonly reasons: readonly string[]; /** The address could not be listened on: the user's choice, not the spec. */ readonly address?: true; /** The database given could not be opened: likewise. */ readonly database?: true };

/** readSpec's options in serve: this build's kept sections, where it keeps any. */
export function sectionsOption(): { sections?: ReturnType<typeof sectionCache> & object } {
  const sections = sectionCache();
  return sections ? { sections } : {};
}

export function defaultDbPath(specFile: string): string {
  return join(dirname(specFile), `${basename(specFile, extname(specFile))}.db`);
}

export async function startServer(options: ServerOptions): Promise<StartResult> {
  // This process serves: V8's form of Node's nextTick is settled before it is busy (./tick-warm-up.ts).
  settleNextTick();
  // The sections of the spec an edit did not touch are read back, parsed and validated, from earlier starts (src/load/sections.ts).
  const { loaded, text } = await readSpec(options.file, sectionsOption());
  if (!loaded.value || text === undefined) return { ok: false, diagnostics: loaded.diagnostics, reasons: ['The spec could not be read.'] };
  const spec = loaded.value;
  const ready = cachedReadiness(options.file, text, () => readiness(spec, loaded.diagnostics));
  if (!ready.ok) return { ok: false, diagnostics: [], reasons: ready.reasons };
  let handlers: ActionHandlers | undefined;
  if (options.handlers !== undefined) {
    const read = await loadHandlers(options.handlers);
    if (!read.ok) return { ok: false, diagnostics: [], reasons: [read.reason] };
    handlers = read.handlers;
  }
  const db = options.db ?? defaultDbPath(options.file);
  let store: Store;
  try {
    store = await openStore(db, { durability: options.durability ?? 'full' });
  } catch (error) {
    const reason = storeProblem(error, db);
    if (reason) return { ok: false, diagnostics: [], reasons: [reason], database: true };
    throw error;
  }
  let counter: RateCounter = memoryCounter;
  let app: FastifyInstance;
  try {
    // Several instances share their rate limits through Redis when given, else through the PostgreSQL store.
    // Keys of services that share one Redis stay apart: the prefix names the service's data.
    if (options.redis !== undefined) counter = await redisCounter({ url: options.redis, prefix: `svcspec:rate:${describeTarget(db)}:` });
    else if (store.kind === 'postgres') counter = postgresCounter((store as PostgresStore).sql);
    app = await createApp({ spec, store, rateCounter: counter, logger: options.quiet ? false : { level: 'info' }, events: { allowPrivateWebhooks: options.allowPrivateWebhooks === true }, ...(handlers ? { handlers } : {}) });
  } catch (error) {
    await counter.close?.();
    await store.close();
    if (error instanceof SetupError) return { ok: false, diagnostics: [], reasons: [error.message] };
    if (options.redis !== undefined && counter === memoryCounter) return { ok: false, diagnostics: [], reasons: [(error as Error).message] };
    throw error;
  }
  app.addHook('onClose', async () => {
    await counter.close?.();
    await store.close();
  });
  const port = options.port ?? 3000;
  const host = options.host ?? '127.0.0.1';
  let address: string;
  try {
    address = await app.listen({ port, host });
  } catch (error) {
    const reason = listenProblem((error as NodeJS.ErrnoException).code, host, port);
    if (!reason) throw error;
    await app.close();
    return { ok: false, diagnostics: [], reasons: [reason], address: true };
  }
  const docs = app.hasRoute({ method: 'GET', url: DOCS_PATH }) ? DOCS_PATH : undefined;
  return { ok: true, url: address, spec, db, store, limits: counter.where, readiness: ready, app, ...(docs ? { docs } : {}), ...(handlers ? { handlers } : {}), close: () => app.close() };
}

/** The handlers module of `--handlers`: its default export, or its `handlers` export, an object of functions. */
export async function loadHandlers(file: string): Promise<{ ok: true; handlers: ActionHandlers } | { ok: false; reason: string }> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, reason: `the handlers module ${file} cannot be loaded: ${(error as Error).message}` };
  }
  const map = module.handlers ?? module.default;
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    return { ok: false, reason: `the handlers module ${file} exports no map of handlers (export default { 'loan.remind': async (input) => ... })` };
  }
  return { ok: true, handlers: map as ActionHandlers };
}

/** Why the address cannot be listened on, in the user's terms; undefined for what is not the user's doing. */
function listenProblem(code: string | undefined, host: string, port: number): string | undefined {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (another svcspec serve, or another program). Stop that one, or choose another port with --port (--port 0 picks a free one).`;
    case 'EACCES':
      return `not allowed to listen on ${host}:${port}${port < 1024 ? ': ports below 1024 need administrator rights' : ''}. Choose another port with --port (1024 or above).`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}: it is not an address of this machine. Use --host 127.0.0.1 (this machine only) or --host 0.0.0.0 (every interface).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${host}: the host name does not resolve. Give --host an address of this machine, e.g. 127.0.0.1.`;
    default:
      return undefined;
  }
}

/**
 * The spec and the store `serve` would use, for commands that work on the service's data
 * without serving it (`svcspec credentials`): the same default file beside the spec, so
 * what they write is what the service reads, even while it runs (WAL allows both).
 */
export async function openServiceStore(file: string, db?: string): Promise<{ ok: true; spec: Spec; store: Store; db: string } | { ok: false; diagnostics: readonly Diagnostic[]; reason?: string }> {
  const loaded = await loadSpec(file);
  if (!loaded.value || loaded.diagnostics.some((d) => d.severity === 'error')) return { ok: false, diagnostics: loaded.diagnostics };
  const path = db ?? defaultDbPath(file);
  try {
    return { ok: true, spec: loaded.value, store: await openStore(path, { durability: 'full' }), db: path };
  } catch (error) {
    const reason = storeProblem(error, path);
    if (reason) return { ok: false, diagnostics: [], reason };
    throw error;
  }
}

/** Why the store named by --db cannot be opened, in the user's terms; undefined for a bug. */
function storeProblem(error: unknown, db: string): string | undefined {
  if (error instanceof StoreUnavailableError) return `${error.message} (--db ${describeTarget(db)}). Start the database, or check the URL.`;
  if (isDatabaseUrl(db)) return `cannot open ${describeTarget(db)}: ${(error as Error).message}`;
  return undefined;
}

/** Where part 6 is served, for the start-up banner. */
export function eventLines(spec: Spec): string[] {
  if (spec.parts.events.statement !== 'given' || spec.events.catalog.length === 0) return [];
  const out: string[] = [];
  const { stream, webhooks } = spec.events;
  if (stream) out.push(`event stream: GET {base_url}${stream.path} (text/event-stream; Last-Event-ID resumes)`);
  if (webhooks?.subscriptions === 'api' && webhooks.path) out.push(`webhook subscriptions: {base_url}${webhooks.path} (docs/events.md)`);
  else if (webhooks) out.push('webhook subscriptions: configured with `svcspec webhooks add`');
  return out;
}

/** `POST   /loans/{id}/approve   loan.approve` lines for the start-up banner. */
export function endpointLines(endpoints: readonly Endpoint[], handled?: ActionHandlers): string[] {
  const width = Math.max(...endpoints.map((e) => e.path.length), 0);
  return endpoints.map((e) => `${e.method.padEnd(6)} {base_url}${e.path.padEnd(width)}  ${e.id}${e.action && !handled?.[e.id] && !performedByReference(e) ? '  (prose: 501 until a handler is given)' : ''}`);
}
