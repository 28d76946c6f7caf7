/**
 * What a forwarding core asks of the proxy, and what it is told: one interface, two cores
 * (http-core.ts on node:http, wire.ts on sockets and llhttp), one contract suite
 * (test/proxy/forward.test.ts) that both pass. A core frames HTTP/1.1 messages and moves
 * them; the handler (forward.ts) decides, per request, to answer itself or to forward, and
 * judges each answer. Fields travel as the flat list of names and values they came as.
 */

/** A request, whole (the proxy reads a request's body before it decides). */
export interface CoreRequest {
  readonly method: string;
  /** The request target as sent (origin form: path and query). */
  readonly url: string;
  /** Field names and values in turn, in order and spelling as they came. */
  readonly fields: readonly string[];
  readonly body: Buffer;
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
   * The answer is complete. `body` is what was kept: the whole body when held, else up to
   * KEEP_BYTES of it (`size` says how much there was). A held answer is sent as returned.
   */
  done(status: number, fields: readonly string[], body: Buffer, size: number): Answer | undefined;
  /** The upstream could not be reached or broke off before answering: what to answer instead. */
  failed(error: Error): Answer;
}

export type Decision = { readonly forward: Forwarding } | { readonly answer: Answer | Promise<Answer> };

export interface Handler {
  request(request: CoreRequest): Decision;
}

export interface Core {
  /** `http://host:port` as listening. */
  readonly url: string;
  close(): Promise<void>;
}

/** Bodies kept for judging up to this size; a larger one streams through unjudged (its shape). */
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
