/**
 * The event stream (docs/events.md "The event stream"): server-sent events, HTML Living
 * Standard §9.2 (text/event-stream). Each connection follows the stored event log with its
 * own cursor: it starts after the event named by `Last-Event-ID` (or `?lastEventId=`), else
 * at the end of the log, and reads the log again whenever the bus rings or a heartbeat is
 * due. Reading the log, not the live notices, is what makes a resumed stream lose and repeat
 * nothing: the events written while a client was away and those written while it catches up
 * come out of the same ordered read.
 *
 * Only the events the listening principal may see (./visibility.ts) in the connection's API
 * version are sent; the others only move the cursor.
 *
 * A stream lasts no longer than its credential: every CREDENTIAL_CHECK_MS the credential
 * it was opened with is looked up again, and the stream ends when it has been revoked, or
 * when the token it was opened with expires (README: "a revocation takes effect within a
 * second"). The client's reconnection is then refused with 401 like any other request.
 */
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../../spec/model.ts';
import type { ServeContext } from '../context.ts';
import type { Principal } from '../principal.ts';
import { validationFailed } from '../validation.ts';
import type { EventBus } from './emit.ts';
import { eventId, payloadIn } from './envelope.ts';
import type { visibility } from './visibility.ts';

/** Events read per look at the log. */
const READ_BATCH = 500;
/** How often an open stream's credential is looked at again. */
export const CREDENTIAL_CHECK_MS = 1_000;
/** The reconnection delay a client is told (`retry:`), in ms. */
const RECONNECT_MS = 3_000;

export interface StreamRoute {
  readonly ctx: ServeContext;
  /** The stream's path, and the same under each version prefix (part 9, path selection). */
  readonly paths: readonly string[];
  readonly endpoint: Endpoint;
  readonly heartbeatMs: number;
  readonly bus: EventBus;
  readonly visible: ReturnType<typeof visibility>;
}

/** `evt_12` (or a bare `12`): the seq; undefined when absent; an error when malformed. */
function resumeFrom(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown>).lastEventId;
  const given = typeof header === 'string' ? header : typeof query === 'string' ? query : undefined;
  if (given === undefined || given === '') return undefined;
  const m = /^(?:evt_)?(\d{1,15})$/.exec(given.trim());
  if (!m) throw validationFailed([{ pointer: typeof header === 'string' ? '/headers/last-event-id' : '/query/lastEventId', message: `must be an event id this stream sent (evt_<n>), not '${given}'` }]);
  return Number(m[1]);
}

export function registerStream(app: FastifyInstance, s: StreamRoute): void {
  const open = new Set<PassThrough>();
  // A stream never ends by itself: closing the service ends them, or the server would wait on them.
  app.addHook('preClose', (done) => {
    for (const body of open) body.end();
    done();
  });
  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const from = resumeFrom(request) ?? (await s.ctx.store.events.latest());
    const body = new PassThrough();
    open.add(body);
    body.on('close', () => open.delete(body));
    follow(s, request, body, from);
    // Fastify sends the stream (so the hooks that run on sending run), and destroys it when the client goes.
    return reply
      .header('cache-control', 'no-cache')
      // Proxies that buffer (nginx) would hold events back.
      .header('x-accel-buffering', 'no')
      .type('text/event-stream; charset=utf-8')
      .send(body);
  };
  for (const url of s.paths) app.route({ method: 'GET', url: url.replaceAll(':', '::'), config: { endpoint: s.endpoint }, handler });
}

/** Why the stream's credential no longer holds, or undefined while it does. */
async function stillValid(s: StreamRoute, principal: Principal): Promise<string | undefined> {
  if (principal.expiresAt !== undefined && s.ctx.now() >= principal.expiresAt) return 'the credential has expired';
  // A JWT's credential is not in the store: only its expiry ends the stream.
  const stored = await s.ctx.store.credentials.get(principal.credential);
  return stored?.revokedAt !== undefined ? 'the credential has been revoked' : undefined;
}

function follow(s: StreamRoute, request: FastifyRequest, body: PassThrough, from: number): void {
  const viewer = { principal: request.principal?.id ?? '', scopes: request.principal?.scopes ?? new Set<string>() };
  const version = request.apiVersion;
  body.write(`retry: ${RECONNECT_MS}\n\n`);
  let cursor = from;
  let closed = false;
  let busy = false;
  let again = false;
  const write = async (text: string): Promise<void> => {
    if (!body.write(text)) await once(body, 'drain');
  };
  const pump = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        const batch = await s.ctx.store.events.after(cursor, READ_BATCH);
        for (const event of batch) {
          if (closed) return;
          cursor = event.seq;
          const data = payloadIn(event, version);
          if (data === undefined || !s.visible(event, viewer)) continue;
          await write(`id: ${eventId(event.seq)}\nevent: ${event.name}\ndata: ${JSON.stringify(data)}\n\n`);
        }
        if (batch.length === READ_BATCH) again = true;
      } while (again && !closed);
    } catch (err) {
      if (closed) return;
      request.log.error({ err }, 'event stream: reading the log failed');
      body.destroy();
    } finally {
      busy = false;
    }
  };
  const unlisten = s.bus.listen(() => void pump());
  const heartbeat = setInterval(() => {
    if (closed) return;
    body.write(': heartbeat\n\n');
    // Events written by another process ring no bus here: the heartbeat looks too.
    void pump();
  }, s.heartbeatMs);
  heartbeat.unref();
  const principal = request.principal;
  const credentialCheck = principal && setInterval(() => {
    void stillValid(s, principal).then((why) => {
      if (why === undefined || closed) return;
      request.log.info({ credential: principal.credential, why }, 'event stream closed');
      body.end(`: ${why}\n\n`);
    }, () => undefined);
  }, CREDENTIAL_CHECK_MS);
  credentialCheck?.unref();
  body.on('close', () => {
    closed = true;
    unlisten();
    clearInterval(heartbeat);
    clearInterval(credentialCheck);
  });
  void pump();
}
