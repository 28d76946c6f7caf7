/**
 * Record envelopes at run time (`resources.<r>.envelope`; where they apply:
 * src/spec/conventions/envelope.ts). A request body that is the record is taken out of its
 * member before anything reads it, so every part module sees the record as it would without
 * an envelope; the pointers of a refusal about that body are given back as pointers into the
 * body as sent (`/article/title`, RFC 6901). Answers that are the record are put into the
 * member where they are made (./representation.ts recordBody).
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import { envelopedPointer, unwrapRecord } from '../spec/conventions/envelope.ts';
import { HttpError } from './errors.ts';
import { validationFailed } from './validation.ts';

/**
 * `handler`, its request body taken out of `member` first; no body stays no body (the handler
 * says whether it needs one). `asHttp` gives a domain rule's refusal as the HttpError the
 * error handler would make of it (ServeContext.domain.httpError), so its pointers move too.
 */
export function unwrapping(member: string, handler: RouteHandlerMethod, asHttp: (error: unknown) => HttpError | undefined): RouteHandlerMethod {
  return async function (this: FastifyInstance, request, reply) {
    // No body, no envelope: a refusal's pointers are then of the record, as the tester and the proxy read them.
    const sent = request.body !== undefined;
    if (sent) {
      const inside = unwrapRecord(member, request.body);
      if (!inside.ok) throw validationFailed([{ pointer: inside.pointer, message: inside.message }]);
      request.body = inside.record;
    }
    try {
      return await handler.call(this, request, reply);
    } catch (error) {
      throw sent ? inEnvelope(member, asHttp(error) ?? error) : error;
    }
  };
}

/** A refusal listing pointers into the record, as one listing them into the body as sent. */
function inEnvelope(member: string, error: unknown): unknown {
  if (!(error instanceof HttpError) || !error.options.errors?.length) return error;
  const errors = error.options.errors.map((v) => ({ ...v, pointer: envelopedPointer(member, v.pointer) }));
  const moved = new HttpError(error.situation, { ...error.options, errors });
  moved.stack = error.stack;
  return moved;
}
