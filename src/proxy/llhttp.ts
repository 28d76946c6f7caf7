/**
 * llhttp, the HTTP/1.1 parser node:http runs, as node binds it (lib/_http_common.js,
 * src/node_http_parser.cc): not a documented API, so it is taken only when it has the shape
 * used here (the callbacks by number, a flat list of fields, `execute` returning the bytes
 * read or an Error), and the proxy runs on node:http (http-core.ts) otherwise. The contract
 * suite (test/proxy/forward.test.ts) runs the wire core on the Node it runs on.
 */
import { createRequire } from 'node:module';

/** The part of node's binding of llhttp used here (lib/_http_common.js, src/node_http_parser.cc). */
export interface Parser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | Error;
  finish(): number | Error | undefined;
  free(): void;
  close(): void;
  [key: number]: unknown;
}
export interface ParserClass {
  new (): Parser;
  readonly REQUEST: number;
  readonly RESPONSE: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
}
export type OnHeadersComplete = (major: number, minor: number, fields: string[] | undefined, method: number | undefined, url: string | undefined, status: number, text: string, upgrade: boolean, keepAlive: boolean) => number;

export interface Llhttp {
  readonly HTTPParser: ParserClass;
  /** Method names by llhttp's number for them. */
  readonly methods: readonly string[];
}

let binding: Llhttp | null | undefined;
/** node's llhttp binding when it is there and has the shape used here; null otherwise. */
export function wireParser(): Llhttp | null {
  if (binding !== undefined) return binding;
  try {
    const common = createRequire(import.meta.url)('_http_common') as { HTTPParser?: ParserClass; methods?: readonly string[] };
    const P = common.HTTPParser;
    const ok = P && Array.isArray(common.methods) && [P.kOnHeaders, P.kOnHeadersComplete, P.kOnBody, P.kOnMessageComplete].every((k) => typeof k === 'number');
    binding = ok ? { HTTPParser: P, methods: common.methods as readonly string[] } : null;
  } catch {
    binding = null;
  }
  return binding;
}
