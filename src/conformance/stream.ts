/**
 * The tester's reader of a server-sent event stream (WHATWG HTML §9.2): one long GET with
 * `Accept: text/event-stream`, parsed as it arrives with eventsource-parser. It keeps every
 * event with the time it came, the comments (heartbeats) and the raw text (for a report),
 * and stays open until closed. No reconnection of its own: a check reconnects explicitly,
 * with the `Last-Event-ID` it chooses.
 *
 * node:http rather than fetch, on a connection of its own (no agent): closing destroys that
 * socket for certain, so no half-closed stream keeps the implementation's server waiting.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createParser } from 'eventsource-parser';
import { Arrivals } from './arrivals.ts';
import { TransportError, type Exchange } from './http.ts';
export interface StreamEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
  /** Epoch ms when it had arrived. */
  readonly at: number;
}

/** How much of the raw stream is kept to show in a report. */
const KEEP_CHARS = 4000;

export class EventStream {
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly events = new Arrivals<StreamEvent>();
  readonly comments: string[] = [];
  /** What the parser could not read, in its words. */
  readonly problems: string[] = [];
  #text = '';
  readonly #response: IncomingMessage;

  private constructor(url: string, requestHeaders: Record<string, string>, response: IncomingMessage) {
    this.url = url;
    this.requestHeaders = requestHeaders;
    this.status = response.statusCode ?? 0;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(response.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    this.headers = headers;
    this.#response = response;
  }

  /** Opens the stream; the answer's status and headers are known when this resolves, events keep coming. */
  static async open(url: string, headers: Readonly<Record<string, string>>, connectTimeoutMs: number): Promise<EventStream> {
    const requestHeaders: Record<string, string> = { accept: 'text/event-stream' };
    for (const [k, v] of Object.entries(headers)) requestHeaders[k.toLowerCase()] = v;
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      let req: ReturnType<typeof httpRequest>;
      try {
        req = send(url, { method: 'GET', headers: requestHeaders, agent: false });
      } catch (error) {
        reject(new TransportError(`GET ${url}: the stream could not be opened: ${(error as Error).message}`));
        return;
      }
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      req.once('response', (res) => {
        clearTimeout(timer);
        resolve(res);
      });
      req.once('error', (error) => {
        clearTimeout(timer);
        reject(new TransportError(`GET ${url}: the stream could not be opened: ${error.message}`));
      });
      req.end();
    });
    const stream = new EventStream(url, requestHeaders, response);
    stream.#read();
    return stream;
  }

  /** The opening request and what has come back so far, as an exchange for a report. */
  exchange(): Exchange {
    return {
      request: { method: 'GET', url: this.url, headers: this.requestHeaders },
      response: { status: this.status, headers: this.headers, text: this.#text, json: undefined },
      ms: 0,
    };
  }

  close(): void {
    this.#response.destroy();
    this.#response.socket?.destroy();
    this.events.end();
  }

  #read(): void {
    const parser = createParser({
      onEvent: (e) => this.events.push({ ...(e.id !== undefined ? { id: e.id } : {}), ...(e.event !== undefined ? { event: e.event } : {}), data: e.data, at: Date.now() }),
      onComment: (c) => this.comments.push(c),
      onError: (e) => this.problems.push(e.message),
    });
    this.#response.setEncoding('utf8');
    this.#response.on('data', (text: string) => {
      if (this.#text.length < KEEP_CHARS) this.#text = (this.#text + text).slice(0, KEEP_CHARS);
      parser.feed(text);
    });
    // Closed by the tester, or the connection dropped: either way the stream ends.
    this.#response.on('error', () => this.events.end());
    this.#response.on('close', () => this.events.end());
  }
}
