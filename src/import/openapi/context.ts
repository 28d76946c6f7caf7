/** What every piece of the OpenAPI import reads: the document, its version, the findings being gathered. */
import { diagnostic, type Diagnostic, type DiagnosticDef } from '../../spec/diagnostics.ts';
import type { Location } from '../../spec/model.ts';
import type { PartName } from '../../spec/parts.ts';
import { parsePointer } from '../../spec/pointer.ts';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ImportContext {
  /** The OpenAPI document, bundled: every $ref is internal (`#/...`). */
  readonly doc: Json;
  /** '3.0' or '3.1': they differ on nullable, exclusive bounds and $ref siblings. */
  readonly version: '3.0' | '3.1';
  readonly locate: (pointer: string) => Location;
  readonly findings: Diagnostic[];
  /** Keywords of the document the format has no place for: where each stands, in order. */
  readonly notCarried: Map<string, Set<string>>;
}

/** The findings already reported, by list (one per import), for reporting each once without a scan. */
const reported = new WeakMap<Diagnostic[], Set<string>>();

/** A finding about the node at `pointer` of the OpenAPI document; `part` files it under a part when its code has none. */
export function report(ctx: ImportContext, def: DiagnosticDef, params: Readonly<Record<string, unknown>>, pointer: string, part?: PartName): void {
  const d = diagnostic(def, params, { pointer });
  // A schema embedded in several places is read each time; it is reported once.
  const key = `${d.code}\u0000${pointer}\u0000${d.message}`;
  const seen = (reported.get(ctx.findings) ?? reported.set(ctx.findings, new Set()).get(ctx.findings))!;
  if (seen.has(key)) return;
  seen.add(key);
  const placed = { ...d, location: ctx.locate(pointer) };
  ctx.findings.push(part && !d.part ? { ...placed, part } : placed);
}

export function notCarried(ctx: ImportContext, keyword: string, pointer: string): void {
  const seen = ctx.notCarried.get(keyword) ?? ctx.notCarried.set(keyword, new Set()).get(keyword)!;
  seen.add(pointer);
}

/** The node at an internal reference (`#/components/schemas/Pet`), or undefined. */
export function at(ctx: ImportContext, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = ctx.doc;
  for (const token of parsePointer(decodeURIComponent(ref.slice(1)))) {
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Json)[token];
  }
  return node;
}

export interface Resolved {
  readonly node: Json;
  /** Where the node stands in the document. */
  readonly pointer: string;
  /** The component schema it is, when reached through `#/components/schemas/<name>`. */
  readonly component?: string;
}

/**
 * Follows `$ref` to the node it names (objects of any kind: schemas, responses, parameters).
 * In OpenAPI 3.1 the members beside a `$ref` apply too (JSON Schema 2020-12); they are laid
 * over the target. In 3.0 they are ignored, as the specification says.
 */
export function resolve(ctx: ImportContext, value: unknown, pointer: string): Resolved | undefined {
  let node = value;
  let where = pointer;
  let component: string | undefined;
  let siblings: Json = {};
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string') {
    const ref = node.$ref;
    if (seen.has(ref)) return undefined;
    seen.add(ref);
    const { $ref: _, ...rest } = node;
    if (ctx.version === '3.1') siblings = { ...rest, ...siblings };
    const m = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
    if (m) component ??= decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~');
    node = at(ctx, ref);
    where = decodeURIComponent(ref.slice(1));
  }
  if (!isObject(node)) return undefined;
  return { node: Object.keys(siblings).length ? { ...node, ...siblings } : node, pointer: where, ...(component !== undefined ? { component } : {}) };
}

/** The component schema a `$ref` names directly (`#/components/schemas/Pet` -> Pet), without following chains. */
export function componentOf(value: unknown): string | undefined {
  if (!isObject(value) || typeof value.$ref !== 'string') return undefined;
  const m = /^#\/components\/schemas\/([^/]+)$/.exec(value.$ref);
  return m ? decodeURIComponent(m[1]).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

export const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json(?:;.*)?$/i;

/** The JSON media type of a content map, if it has one: `application/json` first, then any `+json`. */
export function jsonContent(content: unknown): { mediaType: string; schema: unknown } | undefined {
  if (!isObject(content)) return undefined;
  const keys = Object.keys(content);
  const key = keys.find((k) => /^application\/json\b/i.test(k)) ?? keys.find((k) => JSON_MEDIA.test(k));
  if (key === undefined) return undefined;
  const media = content[key];
  return { mediaType: key, schema: isObject(media) ? media.schema : undefined };
}

/** A name the format accepts for a key (resource, scheme, operation): a letter, then letters, digits, `_` or `-`. */
export const KEY_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** `SpecialEvent` -> `specialEvent`, `pet store` -> `pet_store`: the closest name the format accepts. */
export function keyName(raw: string, fallback: string): string {
  let name = raw.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^[^A-Za-z]+/, '');
  if (!name) name = fallback;
  return name[0].toLowerCase() + name.slice(1);
}

/** A name not yet in `taken`: `name`, else `name2`, `name3`, ... */
export function unique(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name}${i}`)) return `${name}${i}`;
}
