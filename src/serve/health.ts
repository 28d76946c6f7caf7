/**
 * Health checks for orchestrators (Kubernetes probes, load balancers, `docker run
 * --health-cmd`). Neither is an endpoint of the spec: no credential, version or rate limit
 * applies, and neither is in the OpenAPI export. The body follows the health check response
 * format of draft-inadarei-api-health-check-06 (`application/health+json`, `status` pass or
 * fail), and is never cached (`Cache-Control: no-store`).
 *
 *   GET /healthz   liveness: 200 `pass` while the process answers requests. Nothing else is
 *                  looked at, so a database outage does not get a sound process restarted
 *                  in a loop.
 *   GET /readyz    readiness: 200 `pass` when the store answers a real query and its file is
 *                  still the one opened (src/store/sqlite-file.ts); else 503 `fail` with
 *                  Retry-After. While the service shuts down, 503 (src/serve/http-layer.ts).
 *
 * The body names what failed in general words; the reason (a file path, a driver message) is
 * for the operator and goes to the log, once per change. A path the spec itself can serve is
 * never shadowed: when one of its path templates matches `/healthz` or `/readyz` (`/{id}`
 * matches both), that check is not served, and the log says so at start-up.
 */
import type { FastifyInstance } from 'fastify';
import type { Spec } from '../spec/model.ts';
import type { Store, StoreHealth } from '../store/store.ts';

export const LIVENESS_PATH = '/healthz';
export const READINESS_PATH = '/readyz';
/** How long a client that finds the service not ready is told to wait (RFC 9110 §10.2.3). */
const NOT_READY_RETRY_AFTER_S = 5;
const HEALTH_TYPE = 'application/health+json';
/** How often the database is looked at when nobody asks. */
const WATCH_MS = 1_000;

export interface HealthOptions {
  readonly spec: Spec;
  /** The store itself (not a per-request wrapper): its health() is asked. */
  readonly store: Store;
  readonly now: () => number;
}

/** Whether a path template of the spec (`/books/{id}`) matches a concrete path. */
export function templateMatches(template: string, path: string): boolean {
  const pattern = template.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

/** The check paths this spec leaves free. */
export function healthPaths(spec: Spec): { liveness?: string; readiness?: string } {
  const free = (path: string) => !spec.endpoints.some((e) => templateMatches(e.path, path));
  return { ...(free(LIVENESS_PATH) ? { liveness: LIVENESS_PATH } : {}), ...(free(READINESS_PATH) ? { readiness: READINESS_PATH } : {}) };
}

export function registerHealth(app: FastifyInstance, options: HealthOptions): void {
  const { spec, store } = options;
  const paths = healthPaths(spec);
  for (const path of [LIVENESS_PATH, READINESS_PATH]) {
    if (path !== paths.liveness && path !== paths.readiness) app.log.warn(`svcspec: ${path} is not served: a path of the spec matches it, and the spec's endpoint keeps it.`);
  }
  const checkedAt = () => new Date(options.now()).toISOString();
  // The database is watched whether or not anyone probes: a loss is logged (as an error, once
  // per change) within WATCH_MS, even on a service that takes no writes just then.
  let lastReason: string | undefined;
  const observe = (health: StoreHealth): StoreHealth => {
    if (!health.ok && health.reason !== lastReason) app.log.error({ reason: health.reason }, 'the database is unavailable: writes are refused with 503 and /readyz fails');
    if (health.ok && lastReason !== undefined) app.log.info('the database is available again');
    lastReason = health.ok ? undefined : health.reason;
    return health;
  };
  const check = async (): Promise<StoreHealth> => observe(store.health ? await store.health() : { ok: true });
  if (store.health) {
    const timer = setInterval(() => void check().catch(() => undefined), WATCH_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }
  if (paths.liveness) {
    app.get(paths.liveness, async (_request, reply) => reply.header('cache-control', 'no-store').type(HEALTH_TYPE).send({ status: 'pass' }));
  }
  if (!paths.readiness) return;
  app.get(paths.readiness, async (_request, reply) => {
    const health = await check();
    void reply.header('cache-control', 'no-store').type(HEALTH_TYPE);
    if (health.ok) return reply.send({ status: 'pass', checks: { 'database:connection': [{ status: 'pass', time: checkedAt() }] } });
    const output = 'The database cannot be used; the service log says why.';
    return reply.code(503).header('retry-after', String(NOT_READY_RETRY_AFTER_S)).send({
      status: 'fail', output, checks: { 'database:connection': [{ status: 'fail', output, time: checkedAt() }] },
    });
  });
}
