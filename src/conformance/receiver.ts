/**
 * The webhook receiver the tester runs for part 6: a plain node:http server that records
 * every delivery as it came (method, path, headers, the raw body, when) and answers 204.
 * A check can make it answer another status for the next deliveries (a 500 to see a retry,
 * a 410 to see a subscription disabled, docs/events.md "Delivery is at least once").
 *
 * It listens on the loopback interface, where an implementation on the same machine reaches
 * it; when the implementation runs elsewhere, `callbackHost` is the name it reaches the
 * tester by, and the receiver listens on every interface. The raw bytes are kept because
 * a Standard Webhooks signature is over the body exactly as sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Arrivals } from './arrivals.ts';
import type { Exchange } from './http.ts';

export interface Delivery {
  readonly method: string;
  /** The path and query the delivery was sent to. */
  readonly path: string;
  /** Lower-case names; a repeated header's values joined with ', '. */
  readonly headers: Readonly<Record<string, string>>;
  readonly raw: Buffer;
  /** The body as UTF-8 text. */
  readonly body: string;
  /** Epoch ms when the body had arrived. */
  readonly at: number;
  /** What the receiver answered. */
  readonly status: number;
}

export interface ReceiverOptions {
  /** The host name the implementation reaches the receiver by (default 127.0.0.1, listening on loopback only). */
  readonly callbackHost?: string;
  /** The port to listen on (default: any free one). */
  readonly port?: number;
}

/** The path under which the receiver's URLs are given out. */
export const RECEIVER_PATH = '/svcspec/webhooks';

export class WebhookReceiver {
  readonly deliveries = new Arrivals<Delivery>();
  readonly host: string;
  readonly #server: Server;
  readonly #answers: { status: number; left: number; to?: (d: { path: string }) => boolean }[] = [];

  private constructor(server: Server, host: string) {
    this.#server = server;
    this.host = host;
  }

  static async start(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server, options.callbackHost ?? '127.0.0.1');
    server.on('request', (req, res) => receiver.#receive(req, res));
    const listenOn = options.callbackHost === undefined ? '127.0.0.1' : '0.0.0.0';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, listenOn, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return receiver;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** The URL an implementation delivers to; `tag` keeps the deliveries of several subscriptions apart. */
  url(tag?: string): string {
    const host = this.host.includes(':') && !this.host.startsWith('[') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}${RECEIVER_PATH}${tag ? `/${encodeURIComponent(tag)}` : ''}`;
  }

  /** The next `count` deliveries (to the URL of `tag`, when given) are answered with `status` instead of 204. */
  answerNext(count: number, status: number, tag?: string): void {
    this.#answers.push({ status, left: count, ...(tag !== undefined ? { to: this.to(tag) } : {}) });
  }

  /** Deliveries to one of the URLs `url(tag)` gave out. */
  to(tag?: string): (d: { readonly path: string }) => boolean {
    const path = new URL(this.url(tag)).pathname;
    return (d) => d.path.split('?')[0] === path;
  }

  async close(): Promise<void> {
    this.deliveries.end();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const path = req.url ?? '/';
      const at = this.#answers.findIndex((a) => !a.to || a.to({ path }));
      const answer = this.#answers[at];
      let status = 204;
      if (answer) {
        status = answer.status;
        if (--answer.left <= 0) this.#answers.splice(at, 1);
      }
      const raw = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      res.writeHead(status).end();
      this.deliveries.push({ method: req.method ?? 'POST', path, headers, raw, body: raw.toString('utf8'), at: Date.now(), status });
    });
  }
}

/** A delivery shown as an exchange in a report: the request the implementation made, and the receiver's answer. */
export function deliveryExchange(receiver: WebhookReceiver, d: Delivery): Exchange {
  return {
    request: { method: d.method, url: `http://${receiver.host}:${receiver.port}${d.path}`, headers: d.headers, body: d.body },
    response: { status: d.status, headers: {}, text: '', json: undefined },
    ms: 0,
  };
}
