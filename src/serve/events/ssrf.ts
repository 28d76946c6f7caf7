/**
 * Server-side request forgery (OWASP API7:2023): webhook URLs come from clients, and the
 * service POSTs to them from inside its network. A URL must be http(s), and its host must not
 * be, or resolve to, an address of a range that reaches inside: loopback, private (RFC 1918),
 * link-local (cloud metadata at 169.254.169.254), unique-local (RFC 4193), CGNAT (RFC 6598),
 * multicast, broadcast, unspecified or reserved. Ranges are ipaddr.js's (maintained; used by
 * Express's proxy-addr). The check runs when subscribing and again at each delivery: a
 * literal address before connecting (Node does no lookup for one), a name inside the
 * connection (`guardedLookup`), so a name re-pointed at an internal address after
 * subscribing (DNS rebinding) is refused too, and so is a subscription stored before a
 * range was refused (or written into the database by hand). `allowPrivate` (serve --allow-private-webhooks)
 * lifts it for local development and tests.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The ranges a delivery may go to; everything else is refused. */
const PUBLIC: ReadonlySet<string> = new Set(['unicast']);

/** IPv4-compatible IPv6 addresses, ::a.b.c.d (RFC 4291 §2.5.5.1). */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Why an address may not be delivered to, or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `'${address}' is not an IP address`;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const parsed = ipaddr.process(address);
  // ::127.0.0.1 (the URL parser writes it ::7f00:1) is not IPv4-mapped, and ipaddr.js calls
  // it unicast; the kernel may still reach the IPv4 address inside. The form is deprecated
  // and routes nowhere public, so the whole range is refused (:: and ::1 are in it too).
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return `${address} is an IPv4-compatible IPv6 address (deprecated, RFC 4291 §2.5.5.1)`;
  const range = parsed.range();
  return PUBLIC.has(range) ? undefined : `${address} is a ${range} address`;
}

/** Why a URL's host may not be delivered to when it is an IP literal; undefined for a name (checked at lookup) or an address that may be. */
export function refusedLiteral(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? refusedAddress(host) : undefined;
}

/** Why a subscription URL is refused (its scheme, or a literal address in it), or undefined. Names are checked at delivery. */
export function refusedUrl(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http or https URL, not ${url.protocol.slice(0, -1)}`;
  if (url.username || url.password) return 'must not carry credentials in the URL';
  if (allowPrivate) return undefined;
  const host = url.hostname;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'points at the service\'s own host (localhost)';
  const why = refusedLiteral(url);
  return why ? `points inside the network: ${why}` : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses internal addresses (see the header). */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '');
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const why = refusedAddress(a.address);
      if (why) return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${why}`), { code: 'ESSRF' }), '');
    }
    if (options.all) return callback(null, list);
    const first = list[0];
    callback(null, first.address, first.family);
  });
}
