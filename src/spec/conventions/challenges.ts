/**
 * The `WWW-Authenticate` challenges of a 401 (RFC 9110 §11.6.1): one per scheme the endpoint
 * accepts, in the spec's order, the realm the service's name. Serve sends them, and the
 * proxy's own 401s in strict mode carry the same.
 *
 *   basic    Basic realm="…", charset="UTF-8"                       (RFC 7617 §2)
 *   apiKey   ApiKey realm="…", header="X-API-Key"                   (no registered scheme: the
 *                                                                     header or query it is read from)
 *   bearer   Bearer realm="…"[, error="invalid_token"]              (RFC 6750 §3; the error only
 *                                                                     where a bearer token was refused)
 */
import type { AuthScheme, Spec } from '../model.ts';

/** The word before the credentials in Authorization (RFC 9110 §11.4): Basic, or a bearer scheme's prefix, else Bearer (RFC 6750). */
export function authorizationWord(scheme: AuthScheme): string {
  if (scheme.type === 'basic') return 'Basic';
  return scheme.type === 'bearer' && scheme.prefix !== undefined ? scheme.prefix : 'Bearer';
}

/** The realm of the service's challenges: its name, without the characters a quoted string would escape. */
export function realmOf(spec: Pick<Spec, 'purpose' | 'title'>): string {
  return (spec.purpose.name ?? spec.title ?? 'svcspec').replace(/["\\]/g, '');
}

/** The challenges of the accepted schemes, each once; `refusedBy` a bearer scheme adds why (`extra`, else invalid_token). */
export function challenges(schemes: readonly AuthScheme[], realm: string, refusedBy?: AuthScheme, extra?: string): string {
  const out: string[] = [];
  for (const scheme of schemes) {
    let c: string;
    if (scheme.type === 'basic') c = `Basic realm="${realm}", charset="UTF-8"`;
    else if (scheme.type === 'apiKey') c = `ApiKey realm="${realm}", ${scheme.in}="${scheme.param}"`;
    else c = `${authorizationWord(scheme)} realm="${realm}"${refusedBy && (refusedBy.type === 'bearer' || refusedBy.type === 'oauth2') ? `, ${extra ?? 'error="invalid_token"'}` : ''}`;
    if (!out.includes(c)) out.push(c);
  }
  return out.join(', ');
}
