/**
 * What a forwarding core asks of the proxy, and what it is told: one interface, two cores
 * (http-core.ts on node:http, wire.ts on sockets and llhttp), one contract suite
 * (test/proxy/forward.test.ts) that both pass. A core frames HTTP/1.1 messages and moves
 * them; the handler (forward.ts) decides, per request, to answer itself or to forward, and
 * judges each answer. Fields travel as the flat list of names and values they came as.
 */

/**
 * A request: whole when its body is at most the handler's `bodyCap` (the proxy reads such a
 * body before it decides); else `beyond`, handed over as soon as the body is known to be
 * larger (by its Content-Length, or once more than the cap has come), with no body: a
 * forwarded one then streams to the upstream as it comes, held by no one.
 */
export interface CoreRequest {
  readonly method: string;
  /** The request target as sent (origin form: path and query). */
  readonly url: string;
  /** Field names and values in turn, in order and spelling as they came. */
  readonly fields: readonly string[];
  /** The body, whole; empty when `beyond`. */
  readonly body: Buffer;
  /** The body is larger than `bodyCap` and is not held: a forwarded request's body streams through; the proxy's own answer closes the connection after it (the rest of the body is read and dropped). */
  readonly beyond?: boolean;
}

/** An answer the proxy gives itself (a refusal, the upstream down, a relayed delivery). */
export interface Answer {
  readonly status: number;
  /** Names and values in turn; the core adds the framing (Content-Length). */
  readonly fields: readonly string[];
  readonly body: Buffer | string;
}

/** A request to forward, and what becomes of its answer. */
export interface Forwarding {
  /** Fields to send upstream (Host as the upstream's own; the core drops hop-by-hop ones and frames the body). */
  readonly fields: readonly string[];
  readonly body: Buffer;
  /** At the answer's head: whether to hold it whole until judged (else it streams through). */
  hold(status: number, fields: readonly string[]): boolean;
  /**
   * A chunk of a streamed answer, once written to the client. True when the handler took it
   * (the event stream, judged event by event as it flows): the core then keeps no copy.
   */
  chunk(data: Buffer): boolean;
  /**
   * The answer is complete. `body` is what was kept: the whole body when held, else the
   * whole body when it was at most KEEP_BYTES (`size` says how much there was; past
   * KEEP_BYTES the body is not kept). A held answer is sent as returned. A held answer that
   * grows past KEEP_BYTES is let go: the core sends its head and what it held, streams the
   * rest, and calls `done` with `size` past KEEP_BYTES, the return ignored.
   */
  done(status: number, fields: readonly string[], body: Buffer, size: number): Answer | undefined;
  /** The upstream could not be reached or broke off before answering: what to answer instead. */
  failed(error: Error): Answer;
}

export type Decision = { readonly forward: Forwarding } | { readonly answer: Answer | Promise<Answer> };

export interface Handler {
  /** The largest request body held whole before `request` is called; a larger one is `beyond`. */
  readonly bodyCap: number;
  request(request: CoreRequest): Decision;
}

export interface Core {
  /** `http://host:port` as listening. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Answers' bodies are kept for judging, or held (strict mode), up to this size; a larger one
 * streams through, its body unjudged. The spec states no size of answers: this bounds what
 * one answer can make the proxy hold (docs/proxy.md, "Limits of the proxy itself").
 */
export const KEEP_BYTES = 4 * 1024 * 1024;

/** RFC 9110 §7.6.1: fields meant for one connection, never relayed. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The value of a field by its lower-case name (the first, when repeated). */
export function fieldOf(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i].length === name.length && fields[i].toLowerCase() === name) return fields[i + 1];
  return undefined;
}

/** Listens on the port and host asked for (0: any free port) and says where, as `http://host:port` (IPv6 in brackets). */
export async function listening(server: import('node:net').Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => (server.off('error', reject), resolve()));
  });
  const address = server.address() as import('node:net').AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}
