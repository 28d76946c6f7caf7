/**
 * Serving an example for the tester: the reference service on a loopback port, and the
 * principals the tester acts as: two with every scope (ann, bob: ownership needs two),
 * one holding a single scope and one holding all but that one (for the 403 checks). The tester itself never sees this code.
 */
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../src/conformance/index.ts';
import type { ActionHandlers } from '../../src/serve/actions.ts';
import { createApp } from '../../src/serve/app.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders, testerPrincipals } from '../serve/support/credentials.ts';

export interface Running {
  readonly app: FastifyInstance;
  readonly baseUrl: string;
  readonly principals: Principal[];
  /** Waits by moving the service's clock: the tester's rate-limit waits take no real time. */
  readonly sleep: (ms: number) => Promise<void>;
  /** The service's clock, moved by `sleep`: the tester judges the times it writes (events) by it. */
  readonly now: () => number;
}

/** The app is built, `tweak` may add hooks (a deliberately broken implementation), then it listens. */
export async function serveForTester(t: TestContext, spec: Spec, tweak?: (app: FastifyInstance) => void, options: { handlers?: ActionHandlers; allowPrivateWebhooks?: boolean } = {}): Promise<Running> {
  const store = await openSqliteStore({ path: ':memory:' });
  let skew = 0;
  // The tester's webhook receiver listens on loopback, which the SSRF guard refuses unless told (docs/events.md).
  const app = await createApp({ spec, store, now: () => Date.now() + skew, events: { allowPrivateWebhooks: options.allowPrivateWebhooks ?? true, deliveryPollMs: 50 }, ...(options.handlers ? { handlers: options.handlers } : {}) });
  tweak?.(app);
  t.after(async () => {
    await app.close();
    await store.close();
  });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const principals: Principal[] = await testerPrincipals(spec, store);
  // carl lacks every scope but the first; dora lacks only the first, so every endpoint that needs a scope has someone who lacks it (the 403 checks run for all).
  const all = spec.authentication.scopes.map((s) => s.name);
  if (principals.length && all.length > 1) principals.push({ name: 'dora', headers: await credentialHeaders(spec, store, { principal: 'dora', scopes: all.slice(1) }), scopes: all.slice(1) });
  return { app, baseUrl, principals, sleep: async (ms) => void (skew += ms), now: () => Date.now() + skew };
}
