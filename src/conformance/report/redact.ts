/**
 * Credentials out of what a report shows. A report travels (CI logs, issue trackers), so
 * the principals' header values, the credential headers by name, and webhook secrets
 * (`whsec_…`) are replaced by `<redacted>` wherever they appear in an exchange: headers,
 * URL, bodies. A value derived from a credential (the mangled key of the 401 check keeps
 * all but its last four characters) is caught by its header's name. `--show-secrets`
 * turns this off for a run on one's own machine.
 */
import type { Exchange } from '../http.ts';

export const REDACTED = '<redacted>';

/** Header names that carry credentials whatever the scheme (RFC 9110 §11.6.2, §11.7.2; RFC 6265). */
const ALWAYS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'];
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]+={0,2}/g;

export interface Redactor {
  exchange(ex: Exchange): Exchange;
  text(s: string): string;
}

/** A redactor for the credentials of the principals given (their header names and values). */
export function redactor(principals: readonly { readonly headers: Readonly<Record<string, string>> }[]): Redactor {
  const names = new Set([...ALWAYS, ...principals.flatMap((p) => Object.keys(p.headers).map((n) => n.toLowerCase()))]);
  // Longest first, so a value that contains another is replaced whole.
  const values = [...new Set(principals.flatMap((p) => Object.values(p.headers)).filter((v) => v.length >= 6))].sort((a, b) => b.length - a.length);
  const text = (s: string): string => {
    let out = s.replace(WEBHOOK_SECRET, REDACTED);
    for (const v of values) {
      out = out.split(v).join(REDACTED);
      // A credential sent in a URL's query is percent-encoded there.
      const encoded = encodeURIComponent(v);
      if (encoded !== v) out = out.split(encoded).join(REDACTED);
    }
    return out;
  };
  const headers = (h: Readonly<Record<string, string>>): Record<string, string> =>
    Object.fromEntries(Object.entries(h).map(([k, v]) => [k, names.has(k.toLowerCase()) ? (/^\s*(bearer|basic|digest)\s/i.test(v) ? `${v.trim().split(/\s+/)[0]} ${REDACTED}` : REDACTED) : text(v)]));
  return {
    text,
    exchange: (ex) => ({
      ...ex,
      request: { ...ex.request, url: text(ex.request.url), headers: headers(ex.request.headers), ...(ex.request.body !== undefined ? { body: text(ex.request.body) } : {}) },
      response: { ...ex.response, headers: headers(ex.response.headers), text: text(ex.response.text), json: ex.response.json === undefined ? undefined : safeParse(text(JSON.stringify(ex.response.json))) },
    }),
  };
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}

/** A shell-quoted word (POSIX sh): single quotes, a quote inside as '\''. */
function sh(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The `curl` command that sends the exchange's request again (as shown: redacted where the report is). */
export function curlOf(ex: Exchange): string {
  const parts = ['curl', '-i', '-X', ex.request.method, sh(ex.request.url)];
  for (const [k, v] of Object.entries(ex.request.headers)) parts.push('-H', sh(`${k}: ${v}`));
  if (ex.request.body !== undefined) parts.push('--data-raw', sh(ex.request.body));
  return parts.join(' ');
}
