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

/** Past this many characters a body is not written out on the reproduce line. */
const SHOWN_BODY = 2_000;

/**
 * The `curl` command that sends the exchange's request again (as shown: redacted where the
 * report is). A long body (the size limit's check sends 100 KiB) is not written out: its
 * runs of one character are made by a `node -e` piped into curl (`"x".repeat(102400)`), so
 * the line stays readable and still sends the same bytes; a long body without such runs is
 * cut, and says so.
 */
export function curlOf(ex: Exchange): string {
  const parts = ['curl', '-i', '-X', ex.request.method, sh(ex.request.url)];
  for (const [k, v] of Object.entries(ex.request.headers)) parts.push('-H', sh(`${k}: ${v}`));
  const body = ex.request.body;
  if (body !== undefined && body.length <= SHOWN_BODY) parts.push('--data-raw', sh(body));
  else if (body !== undefined) {
    const pieces: string[] = [];
    let literal = '';
    for (const m of body.matchAll(/([\s\S])\1{63,}|[\s\S]/g)) {
      if (m[0].length === 1) literal += m[0];
      else {
        if (literal) pieces.push(JSON.stringify(literal));
        literal = '';
        pieces.push(`${JSON.stringify(m[1])}.repeat(${m[0].length})`);
      }
    }
    if (literal) pieces.push(JSON.stringify(literal));
    const made = pieces.join('+');
    // Piped, not `"$(…)"`: a command substitution drops the body's trailing line breaks.
    if (made.length <= SHOWN_BODY) return `node -e ${sh(`process.stdout.write(${made})`)} | ${parts.join(' ')} --data-binary @-`;
    parts.push('--data-raw', sh(`${body.slice(0, 200)}…`), `# the body of ${body.length} characters is cut here; --format json keeps it whole`);
  }
  return parts.join(' ');
}
