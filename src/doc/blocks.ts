/**
 * The neutral structure of a rendered document: what the part builders (src/doc/parts)
 * produce and both renderers (Markdown, HTML) write. Text is data, never markup: each
 * renderer escapes it for its own language, so spec text cannot inject either.
 */

/** A run of text: plain, code (names, paths, values), or emphasized. */
export type Inline = string | { readonly code: string } | { readonly strong: string };

export type Text = readonly Inline[];

export type Block =
  | { readonly kind: 'paragraph'; readonly text: Text }
  /** A heading under the part's own (a resource, a state machine, a user). */
  | { readonly kind: 'heading'; readonly text: Text }
  | { readonly kind: 'list'; readonly items: readonly Text[] }
  /** Label and value pairs: a definition list in HTML, bullets in Markdown. */
  | { readonly kind: 'facts'; readonly items: readonly (readonly [label: string, value: Text])[] }
  | { readonly kind: 'table'; readonly columns: readonly string[]; readonly rows: readonly (readonly Text[])[] };

export function code(value: string | number): Inline {
  return { code: String(value) };
}

export function strong(value: string): Inline {
  return { strong: value };
}

export function paragraph(...text: Inline[]): Block {
  return { kind: 'paragraph', text };
}

export function heading(...text: Inline[]): Block {
  return { kind: 'heading', text };
}

export function list(items: readonly Text[]): Block {
  return { kind: 'list', items };
}

/** Facts whose value is undefined are left out; no facts, no block. */
export function facts(items: readonly (readonly [string, Text | undefined])[]): Block[] {
  const known = items.filter((i): i is readonly [string, Text] => i[1] !== undefined);
  return known.length ? [{ kind: 'facts', items: known }] : [];
}

/** No rows, no table. */
export function table(columns: readonly string[], rows: readonly (readonly Text[])[]): Block[] {
  return rows.length ? [{ kind: 'table', columns, rows }] : [];
}

/** Items joined with a separator: `a`, `b`, `c`. */
export function joined(items: readonly Inline[], separator = ', '): Inline[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [separator, item]));
}

/** Code items joined, or the fallback text when there are none. */
export function codes(values: readonly (string | number)[], none = ''): Inline[] {
  return values.length ? joined(values.map(code)) : none ? [none] : [];
}

/**
 * Text from the spec. Authors mark names with backticks (`isbn`) in descriptions; those
 * spans become code, and nothing else is read as markup.
 */
export function specText(value: string): Inline[] {
  return value.split(/(`[^`\n]+`)/).filter(Boolean).map((piece) => (/^`[^`]+`$/.test(piece) ? code(piece.slice(1, -1)) : piece));
}

/** Spec text, or nothing. */
export function maybeText(value: string | undefined): Inline[] {
  return value === undefined ? [] : specText(value);
}

/** A multi-paragraph text (a summary written with blank lines) as paragraphs. */
export function paragraphs(value: string | undefined): Block[] {
  if (value === undefined) return [];
  return value.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean).map((p) => paragraph(...specText(p)));
}
