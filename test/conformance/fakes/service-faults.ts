/**
 * Deliberately broken implementations: the reference service with one fault slipped in by a
 * Fastify hook, right in everything else. The tester must catch each (broken.test.ts), and
 * so must the proxy where the tester's traffic exercises it (test/proxy/faults.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { PartName } from '../../../src/spec/parts.ts';

/** Rewrites JSON answers: the hook of a service that gets something wrong. */
function rewrite(app: FastifyInstance, change: (url: string, method: string, status: number, body: any, headers: (name: string, value?: string) => void) => { status?: number; body?: unknown } | void): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    const body = JSON.parse(payload);
    const out = change(request.url, request.method, reply.statusCode, body, (name, value) => (value === undefined ? reply.removeHeader(name) : reply.header(name, value)));
    if (!out) return payload;
    if (out.status) reply.code(out.status);
    return JSON.stringify(out.body ?? body);
  });
}

export const SERVICE_FAULTS: { name: string; part: PartName; rule: RegExp; tweak: (app: FastifyInstance) => void }[] = [
  {
    name: 'accepts an illegal transition',
    part: 'states',
    rule: /from \[/,
    tweak: (app) => rewrite(app, (_u, _m, status) => (status === 409 ? { status: 200 } : undefined)),
  },
  {
    name: 'drops a required-field check',
    part: 'resources',
    rule: /: required$/,
    tweak: (app) => rewrite(app, (_u, method, status, body) => (method === 'POST' && status === 422 && body.errors?.some((e: { message: string }) => /required|missing/.test(e.message)) ? { status: 201, body: { id: 'x' } } : undefined)),
  },
  {
    // Found by a new user's walk (Museum API import): every other check passed.
    name: 'drops a required field from the records it lists',
    part: 'resources',
    rule: /a page of book records$/,
    tweak: (app) => rewrite(app, (url, method, status, body) => (method === 'GET' && status === 200 && /^\/books(\?|$)/.test(url) && Array.isArray(body.items) ? { body: { ...body, items: body.items.map(({ title: _title, ...rest }: Record<string, unknown>) => rest) } } : undefined)),
  },
  {
    // Found by a new user's walk (Ory Kratos import): the reference sent /{plural}/{id} where the spec reads the record elsewhere, and no check followed it.
    name: 'sends a Location where the record is not read',
    part: 'resources',
    rule: /^GET \/books\/\{id\}$/,
    tweak: (app) => rewrite(app, (url, method, status, body, header) => {
      if (method === 'POST' && status === 201 && /^\/books(\?|$)/.test(url) && body.id) header('location', `/book/${String(body.id)}`);
    }),
  },
  {
    name: 'leaks a writeOnly field',
    part: 'resources',
    rule: /writeOnly/,
    tweak: (app) => rewrite(app, (url, _m, status, body) => (status < 300 && /^\/members/.test(url) && body.id ? { body: { ...body, pin: '0000' } } : undefined)),
  },
  {
    name: 'ignores a missing credential',
    part: 'authentication',
    rule: /needs/,
    tweak: (app) => rewrite(app, (_u, _m, status) => (status === 401 ? { status: 404 } : undefined)),
  },
  {
    name: "lets one principal read another's record",
    part: 'authentication',
    rule: /owned/,
    tweak: (app) => {
      let ann: string | undefined;
      app.addHook('onRequest', async (request) => {
        const key = request.headers['x-api-key'] as string | undefined;
        ann ??= key;
        if (key && request.method === 'GET' && /^\/reading-lists\//.test(request.url)) request.headers['x-api-key'] = ann;
      });
    },
  },
  {
    name: 'omits the Sunset header',
    part: 'versioning',
    rule: /deprecated/,
    tweak: (app) => rewrite(app, (_u, _m, _s, _b, header) => void header('sunset')),
  },
  {
    name: 'repeats a record across pages',
    part: 'limits',
    rule: /pages/,
    tweak: (app) => {
      let last: unknown;
      rewrite(app, (url, method, status, body) => {
        if (method !== 'GET' || status !== 200 || !Array.isArray(body.items) || !/[?&]cursor=/.test(url)) {
          if (Array.isArray(body?.items)) last = body.items[0];
          return undefined;
        }
        return last ? { body: { ...body, items: [last, ...body.items.slice(1)] } } : undefined;
      });
    },
  },
  {
    name: 'answers a subscription without its secret',
    part: 'events',
    rule: /^webhooks: subscriptions api at \/webhooks/,
    tweak: (app) => rewrite(app, (url, method, status, body) => (method === 'POST' && url === '/webhooks' && status === 201 ? { body: { ...body, secret: undefined } } : undefined)),
  },
  {
    name: 'resumes its event stream ignoring Last-Event-ID',
    part: 'events',
    rule: /^stream: \/events$/,
    tweak: (app) => app.addHook('onRequest', async (request) => void delete request.headers['last-event-id']),
  },
  {
    name: 'ignores a declared prefix filter',
    part: 'endpoints',
    rule: /^title: eq, prefix, contains$/,
    tweak: (app) => app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/books?')) request.raw.url = request.url.replace(/[?&]title%5Bprefix%5D=[^&]*|[?&]title\[prefix\]=[^&]*/, '');
    }),
  },
  {
    name: 'ignores a declared sort',
    part: 'endpoints',
    rule: /^sort: title, publishedOn, pages$/,
    tweak: (app) => app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/books?')) request.raw.url = request.url.replace(/([?&])sort=-?pages(&|$)/, '$1');
    }),
  },
  {
    name: 'ignores the full-text parameter',
    part: 'endpoints',
    rule: /^search title$/,
    tweak: (app) => app.addHook('onRequest', async (request) => {
      if (request.url.startsWith('/books?')) request.raw.url = request.url.replace(/[?&]q=[^&]*/, '');
    }),
  },
  {
    name: 'reads a lower bound as exclusive (gte as gt)',
    part: 'endpoints',
    rule: /^pages: gte, lte$/,
    tweak: (app) => app.addHook('onRequest', async (request) => {
      const m = /pages(%5B|\[)gte(%5D|\])=(\d+)/.exec(request.url);
      if (m) request.raw.url = request.url.replace(m[0], `pages%5Bgte%5D=${Number(m[3]) + 1}`);
    }),
  },
  {
    name: 'answers errors in another shape',
    part: 'errors',
    rule: /error shape/,
    tweak: (app) => rewrite(app, (_u, _m, status, body, header) => (status >= 400 ? (header('content-type', 'application/json'), { body: { error: body.title } }) : undefined)),
  },
];
