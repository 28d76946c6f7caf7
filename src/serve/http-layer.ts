/**
 * Errors of the HTTP layer, answered before any route runs, in the spec's declared error
 * shape (part 7) like every other failure, and written to the request log:
 *
 *   Node's HTTP parser refuses the bytes   `clientError`: a bad request line, a bad header,
 *     (llhttp)                             no Host (RFC 9112 §3.2), header fields over its
 *                                          16 KiB (431, RFC 6585 §5), a request not sent in
 *                                          time (408); the connection is closed after the answer
 *   the router cannot decode the path      a bad percent-encoding (`/books/%FF`, RFC 3986 §2.1):
 *                                          400 malformed-request
 *   a path parameter over 100 characters   414 uri-too-long (RFC 9110 §15.5.15); find-my-way's
 *                                          maxParamLength, kept as a bound on what a route reads
 *   an HTTP/1.1 request without Host       400 malformed-request (RFC 9112 §3.2), answered by
 *                                          us, not by Node (requireHostHeader: false)
 *   the service is shutting down           503 unavailable with Retry-After and Connection:
 *                                          close, instead of Fastify's return503OnClosing body
 *
 * Fastify answers the first three with its own `{error, code, message, statusCode}` body
 * naming its codes, and logs none of them; these handlers replace its defaults.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Situation } from '../spec/http-errors.ts';
import type { ServeContext } from './context.ts';
import { HttpError, renderError } from './errors.ts';

// getBuiltinModule, not an ES import of node:http: why in src/serve/events/delivery.ts.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** What a client is told to wait before trying again while the service shuts down (RFC 9110 §10.2.3). */
export const CLOSING_RETRY_AFTER_S = 5;

/** The request log line of an answer that no route gave (the shape of app.ts's onResponse line). */
export function logAnswer(log: FastifyBaseLogger, line: { method?: string; url?: string; status: number; ms?: number; reason?: string }): void {
  log.info({ ms: 0, ...line }, 'request');
}

/** Fastify's `clientErrorHandler`, `frameworkErrors` and the options they need. */
export function httpLayerOptions(ctx: ServeContext, logging: boolean): Pick<FastifyServerOptions, 'clientErrorHandler' | 'frameworkErrors' | 'return503OnClosing'> & { http: { requireHostHeader: boolean } } {
  return {
    // Node would answer a missing Host with an empty 400 of its own; refuseEarly answers it.
    http: { requireHostHeader: false },
    // The answer while closing is ours (answerWhileClosing), in the declared shape.
    return503OnClosing: false,
    clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
      // https://nodejs.org/api/http.html#event-clienterror: nothing to answer on a reset socket,
      // nor on one whose response has begun (a pipelined request after a half-sent answer).
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (!socket.writable || inProgress?.headersSent) {
        socket.destroy();
        return;
      }
      const { situation, detail } = clientErrorSituation(error.code);
      const target = requestLine((error as { rawPacket?: unknown }).rawPacket);
      const rendered = renderError(ctx.errorShape, ctx.resolveError(situation), new HttpError(situation, { detail }), undefined);
      const body = JSON.stringify(rendered.body);
      const head = [
        `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}`,
        `content-type: ${rendered.contentType}`,
        `content-length: ${Buffer.byteLength(body)}`,
        'connection: close',
      ];
      socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
      if (logging) logAnswer(this.log, { ...target, status: rendered.status, reason: error.code ?? 'parse error' });
    },
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const situation: Situation = error.code === 'FST_ERR_BAD_URL' ? 'malformed-request' : error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'uri-too-long' : 'internal';
      const detail =
        situation === 'malformed-request' ? 'The path cannot be decoded: a percent-encoding in it is not valid UTF-8 (RFC 3986 §2.1).'
        : situation === 'uri-too-long' ? 'A segment of the path is longer than 100 characters, longer than any id this service reads.'
        : 'An unexpected fault; it has been logged.';
      if (situation === 'internal') request.log.error({ err: error }, 'unexpected fault');
      const rendered = renderError(ctx.errorShape, ctx.resolveError(situation), new HttpError(situation, { detail }), pathOf(request.raw.url));
      // No route, so no onResponse hook of app.ts: the line is written here.
      if (logging) logAnswer(request.log, { method: request.raw.method, url: request.raw.url, status: rendered.status });
      void reply.code(rendered.status).headers(rendered.headers).type(rendered.contentType).send(rendered.body);
    },
  };
}

/**
 * The first onRequest hook. An HTTP/1.1 request without Host is 400 (RFC 9112 §3.2: "A
 * server MUST respond with a 400 (Bad Request)"). While the service closes (SIGTERM), a
 * request that still arrives on an open connection is refused with 503 in the declared
 * shape, Retry-After and `Connection: close`, before anything else runs; requests that were
 * running finish.
 */
export function refuseEarly(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      return done(new HttpError('malformed-request', { detail: 'An HTTP/1.1 request must carry a Host header field (RFC 9112 §3.2).' }));
    }
    if (!closing) return done();
    void reply.header('connection', 'close');
    done(new HttpError('unavailable', { detail: 'The service is shutting down; try again shortly.', headers: { 'retry-after': String(CLOSING_RETRY_AFTER_S) } }));
  });
}

function clientErrorSituation(code: string | undefined): { situation: Situation; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { situation: 'headers-too-large', detail: 'The request line and header fields are larger than this service reads (16 KiB).' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { situation: 'request-timeout', detail: 'The request was not sent in time.' };
    default:
      return { situation: 'malformed-request', detail: `The request is not well-formed HTTP/1.1 (RFC 9112)${code ? `: the parser said ${code}` : ''}.` };
  }
}

/** The method and target of a refused request, for the log, when its first line can be read. */
function requestLine(raw: unknown): { method?: string; url?: string } {
  if (!Buffer.isBuffer(raw)) return {};
  const m = /^([A-Z]{1,20}) (\S{1,2048})/.exec(raw.subarray(0, 2100).toString('latin1'));
  return m ? { method: m[1], url: m[2] } : {};
}

function pathOf(url: string | undefined): string | undefined {
  return url?.split('?')[0];
}
