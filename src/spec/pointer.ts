/** JSON Pointer (RFC 6901) building and parsing. */

export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => `/${escapeToken(t)}`).join('');
}

export function child(parent: string, ...tokens: (string | number)[]): string {
  return parent + pointer(...tokens);
}

export function parsePointer(p: string): string[] {
  if (p === '') return [];
  return p.slice(1).split('/').map(unescapeToken);
}

export function parentPointer(p: string): string | undefined {
  if (p === '') return undefined;
  return p.slice(0, p.lastIndexOf('/'));
}
