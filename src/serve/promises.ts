/**
 * Conditional requests as the spec promises them (limits.conditional, src/spec/conventions/
 * promises.ts): one hook before the handlers and one after, so the handlers keep computing
 * validators and preconditions as they always do, and what the spec does not promise is
 * neither honoured nor sent.
 *
 *   writes: false, or `none`   If-Match and If-Unmodified-Since are ignored (RFC 9110 §13.2.1
 *                              lets a server ignore preconditions it does not implement)
 *   reads: false, or `none`    If-None-Match and If-Modified-Since are ignored
 *   no `etag` validator        no ETag is sent
 *
 * Where the spec is silent the runtime default applies: a strong ETag, both preconditions.
 * `last-modified` is not sent by the reference service yet (the store keeps no change time);
 * the app logs it at start (see registerConditional).
 */
import type { FastifyInstance } from 'fastify';
import { conditionalPromise } from '../spec/conventions/promises.ts';
import type { ServeContext } from './context.ts';

export function registerConditional(app: FastifyInstance, ctx: ServeContext): void {
  const promise = conditionalPromise(ctx.spec).value;
  const writes = promise?.writes ?? false;
  const reads = promise?.reads ?? false;
  const etag = promise?.validators.includes('etag') ?? false;
  if (promise?.validators.includes('last-modified')) app.log.warn('limits.conditional states last-modified: the reference service sends no Last-Modified (its store keeps no change time)');
  // Both hooks run on every request: synchronous (no promise each), and a header is deleted
  // only where a client sent it (a delete turns the headers object into a dictionary, whose
  // every later read is slower).
  if (!writes || !reads) {
    const dropped = [...(writes ? [] : ['if-match', 'if-unmodified-since']), ...(reads ? [] : ['if-none-match', 'if-modified-since'])];
    app.addHook('onRequest', (request, _reply, done) => {
      const headers = request.headers;
      for (const name of dropped) if (headers[name] !== undefined) delete headers[name];
      done();
    });
  }
  if (!etag) {
    app.addHook('onSend', (_request, reply, payload, done) => {
      // Only the service's records: the reference page's own assets keep theirs.
      if (reply.hasHeader('etag') && !/javascript|css/.test(String(reply.getHeader('content-type') ?? ''))) reply.removeHeader('etag');
      done(null, payload);
    });
  }
}
