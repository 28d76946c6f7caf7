/**
 * One fault per family of protocol promise (issue #16), each slipped into the reference
 * service by a Fastify hook, so the service is right in everything else: the tester must
 * catch the fault and name the statement of the spec it breaks. The families: entity tags,
 * If-Match, If-None-Match, idempotency keys, next links, filters on every page, RateLimit
 * values, deprecation on current versions, internals in error bodies, and constraints inside
 * nested objects and array items.
 */
import type { FastifyInstance } from 'fastify';
import type { PartName } from '../../../src/spec/parts.ts';

export interface PromiseFault {
  readonly name: string;
  readonly part: PartName;
  /** The text of the rule a failure must name. */
  readonly rule: RegExp;
  readonly tweak: (app: FastifyInstance) => void;
}

/** Rewrites a JSON answer: the hook of a service that gets something wrong. */
function rewrite(app: FastifyInstance, change: (url: string, method: string, status: number, body: any) => { status?: number; body?: unknown } | void): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    const out = change(request.url, request.method, reply.statusCode, JSON.parse(payload));
    if (!out) return payload;
    if (out.status) reply.code(out.status);
    return JSON.stringify(out.body);
  });
}

/** Changes a response header before it is sent. */
function header(app: FastifyInstance, name: string, change: (value: string | undefined, url: string, method: string) => string | undefined): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const before = reply.getHeader(name);
    const after = change(typeof before === 'string' ? before : undefined, request.url, request.method);
    if (after === undefined) reply.removeHeader(name);
    else reply.header(name, after);
    return payload;
  });
}

let counter = 0;

export const PROMISE_FAULTS: readonly PromiseFault[] = [
  {
    name: 'sends a new ETag on every read of an unchanged record',
    part: 'endpoints',
    rule: /^conditional: etag/,
    tweak: (app) => header(app, 'etag', (v) => (v ? `"${v.slice(1, -1)}-${++counter}"` : v)),
  },
  {
    name: 'ignores If-Match (a stale tag overwrites the record)',
    part: 'endpoints',
    rule: /^conditional: etag/,
    tweak: (app) => app.addHook('onRequest', async (request) => void delete request.headers['if-match']),
  },
  {
    name: 'answers a current If-None-Match with 200 and the body',
    part: 'endpoints',
    rule: /^conditional: etag/,
    tweak: (app) => app.addHook('onRequest', async (request) => void delete request.headers['if-none-match']),
  },
  {
    name: 'ignores the Idempotency-Key (a retried create makes a second record)',
    part: 'endpoints',
    rule: /^idempotency: Idempotency-Key/,
    tweak: (app) => app.addHook('onRequest', async (request) => void delete request.headers['idempotency-key']),
  },
  {
    name: "keeps one namespace of idempotency keys for every credential (another principal's key replays the first's answer)",
    part: 'endpoints',
    rule: /^idempotency: Idempotency-Key/,
    tweak: (app) => {
      let first: string | undefined;
      app.addHook('onRequest', async (request) => {
        const key = request.headers['x-api-key'] as string | undefined;
        first ??= key;
        if (key && request.headers['idempotency-key']) request.headers['x-api-key'] = first;
      });
    },
  },
  {
    name: 'links the next page without its position (the link leads back to the first page)',
    part: 'limits',
    rule: /^links: \[next\]$/,
    tweak: (app) => header(app, 'link', (v) => v?.replace(/&cursor=[^&>]*/, '')),
  },
  {
    name: 'forgets a filter after the first page',
    part: 'endpoints',
    rule: /^pages: gte, lte$/,
    tweak: (app) => app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/books?') && /[?&]cursor=/.test(request.url)) request.raw.url = request.url.replace(/[?&]pages(%5B|\[)(gte|lte)(%5D|\])=[^&]*/g, '');
    }),
  },
  {
    name: 'announces another quota in RateLimit-Policy than the spec declares',
    part: 'limits',
    rule: /headers: ratelimit$/,
    tweak: (app) => header(app, 'ratelimit-policy', (v) => v?.replace(/q=\d+/, 'q=1000')),
  },
  {
    name: 'sends Deprecation on the current version too',
    part: 'versioning',
    rule: /^version 2: current/,
    tweak: (app) => header(app, 'deprecation', (v) => v ?? '@1780272000'),
  },
  {
    name: 'puts its stack trace in a 404 body',
    part: 'errors',
    rule: /error shape/,
    tweak: (app) => rewrite(app, (_u, _m, status, body) => (status === 404 ? { body: { ...body, detail: `${body.detail}\n    at Object.findRecord (/app/src/records.js:41:11)` } } : undefined)),
  },
  {
    name: "accepts a postal code inside the address that breaks its pattern",
    part: 'resources',
    rule: /^address\.postalCode: pattern$/,
    tweak: (app) => rewrite(app, (url, method, status, body) => {
      const onlyPostal = Array.isArray(body?.errors) && body.errors.length > 0 && body.errors.every((e: { pointer?: string }) => e.pointer === '/address/postalCode');
      if (!url.startsWith('/members') || status !== 422 || !onlyPostal || !body.errors.some((e: { message: string }) => /pattern|match|format/i.test(e.message))) return undefined;
      return { status: method === 'POST' ? 201 : 200, body: { id: 999999, name: 'accepted' } };
    }),
  },
];
