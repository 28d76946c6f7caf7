/**
 * svcspec proxy: stands between real clients and any implementation and judges the traffic
 * by the spec alone (nothing here imports the reference service, as the tester does not).
 * The forwarding core (forward.ts) relays; the judge (judge.ts) says, exchange by exchange
 * and across exchanges, what breaks the spec; findings are values handed to `onFinding`.
 * `replay` judges a record of traffic (the proxy's or the tester's `--record`) again.
 */
import type { Exchange } from '../conformance/http.ts';
import type { Spec } from '../spec/model.ts';
import type { Finding } from './finding.ts';
import { listen, type Mode } from './forward.ts';
import { Judge } from './judge.ts';

export type { Finding } from './finding.ts';
export type { Mode } from './forward.ts';
export { FINDINGS_HEADER } from './forward.ts';
export { RELAY_PATH } from './parts/events.ts';
export { Judge } from './judge.ts';
export { asConformanceReport, findingJson, findingLine, formatSarif, summaryText, type ProxyCounts } from './report.ts';

export interface ProxyOptions {
  readonly spec: Spec;
  /** Where the implementation runs, e.g. http://127.0.0.1:3000. */
  readonly upstream: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Default 127.0.0.1: loopback only. */
  readonly host?: string;
  readonly mode?: Mode;
  readonly onFinding?: (finding: Finding) => void;
  readonly onExchange?: (exchange: Exchange, findings: readonly Finding[]) => void;
  readonly onUpstreamError?: (message: string) => void;
  /** The clock exchanges are stamped with (default: this machine's). */
  readonly now?: () => number;
  /** The client's webhook receiver: the service delivers to the proxy's relay path (RELAY_PATH), which judges and relays. */
  readonly receiver?: string;
  /** The secret of a subscription the operator configured (with `subscriptions: api`, the proxy reads it from the answer). */
  readonly webhookSecret?: string;
  /** The forwarding core (default: wire, where this Node's llhttp binding is as it expects; else node:http). */
  readonly core?: 'wire' | 'http';
}

export interface RunningProxy {
  readonly url: string;
  readonly judge: Judge;
  readonly findings: readonly Finding[];
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== 'http:') throw new Error(`the proxy relays to http:// services; '${options.upstream}' is not one`);
  const judge = new Judge(options.spec, options.webhookSecret ? { webhookSecret: options.webhookSecret } : {});
  const findings: Finding[] = [];
  const forwarder = await listen({
    judge,
    upstream,
    mode: options.mode ?? 'report',
    onFindings: (found, exchange, partial) => {
      for (const f of found) {
        findings.push(f);
        options.onFinding?.(f);
      }
      // An exchange is told (and recorded, --record) once, when it is complete.
      if (!partial) options.onExchange?.(exchange, found);
    },
    ...(options.onUpstreamError ? { onUpstreamError: options.onUpstreamError } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.receiver ? { receiver: options.receiver } : {}),
    ...(options.core ? { core: options.core } : {}),
  }, options.port ?? 0, options.host ?? '127.0.0.1');
  return { url: forwarder.url, judge, findings, close: () => forwarder.close() };
}

/** Judges recorded traffic, in the order it was recorded. */
export function replay(spec: Spec, exchanges: readonly Exchange[]): { findings: Finding[]; judge: Judge } {
  const judge = new Judge(spec);
  const findings = exchanges.flatMap((e) => judge.judge(e));
  return { findings, judge };
}
