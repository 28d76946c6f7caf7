/**
 * The client addresses a run sends from. A rate limit counted per client address (`scope:
 * address`, and any limit on anonymous requests) admits so many requests a window from each
 * address: helpdesk's 5 ticket creates a minute are 5 for each client. Against a service on
 * loopback, the machine is several clients at once where its loopback interface answers on
 * more than 127.0.0.1 (Linux routes all of 127.0.0.0/8 there, RFC 1122 §3.2.1.3(g)), so a run
 * that would wait minutes for one address's windows sends from a few addresses instead, each
 * held to its own limit, and the ledger (quota.ts) counts each apart. The limit itself is
 * still checked from one address (parts/limits.ts).
 *
 * `auto` (the default) does so only where it can: the base URL names 127.0.0.1, the spec counts
 * some limit by address, and a connection from 127.0.0.2 to the service succeeds (macOS, for
 * one, answers on 127.0.0.1 alone). Anywhere else, and with `none`, the run sends from the
 * machine's one address. A list names the addresses to send from.
 */
import { connect } from 'node:net';
import { TransportError } from './http.ts';
import type { Spec } from '../spec/model.ts';
import { ratePolicyFields } from '../spec/conventions/rate.ts';

export type ClientAddresses = 'auto' | 'none' | readonly string[];

/** Loopback addresses tried by `auto`, after the default one (127.0.0.1). */
const LOOPBACK_EXTRA = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];

/**
 * The local addresses to send from; `undefined` stands for the machine's default (the first
 * is always it where `auto` or `none` chose).
 */
export async function clientSources(spec: Spec, baseUrl: string, choice: ClientAddresses = 'auto'): Promise<readonly (string | undefined)[]> {
  if (choice === 'none') return [undefined];
  if (choice !== 'auto') return given(baseUrl, choice);
  const byAddress = [...ratePolicyFields(spec).values()].some((p) => p.scope === 'address');
  if (!byAddress) return [undefined];
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return [undefined];
  }
  if (url.hostname !== '127.0.0.1') return [undefined];
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const extra = [];
  for (const address of LOOPBACK_EXTRA) if (await reaches(url.hostname, port, address)) extra.push(address);
  return [undefined, ...extra];
}

/** Addresses given by name: each must reach the service, else the run stops at once, naming them. */
async function given(baseUrl: string, addresses: readonly string[]): Promise<readonly (string | undefined)[]> {
  if (!addresses.length) return [undefined];
  const url = new URL(baseUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const failed: string[] = [];
  for (const address of addresses) if (!(await reaches(host, port, address))) failed.push(address);
  if (failed.length) throw new TransportError(`the client address${failed.length > 1 ? 'es' : ''} ${failed.join(', ')} cannot reach ${url.host} (not an address of this machine, or another family than the service's): give addresses this machine has, or --client-addresses none`);
  return addresses;
}

/** Whether a TCP connection from `localAddress` to the service opens (closed at once). */
function reaches(host: string, port: number, localAddress: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, localAddress });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 1000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
