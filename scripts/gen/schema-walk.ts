/**
 * Walks FORMAT_SCHEMA and turns it into reference sections: one section (a table of
 * keys) per object of the format, in document order. It reads the schema generically
 * ($ref into definitions, anyOf, if/then variants, additionalProperties maps), so a key
 * added to the schema appears in docs/format.md when `npm run gen` is run again.
 *
 * Each definition is documented once, where the walk first meets it; later references
 * (and recursive ones: a shape's `items` is a shape) link to that section.
 */
import { FORMAT_SCHEMA } from '../../src/spec/format-schema.ts';
import { code, slug } from './markdown.ts';

/** A JSON Schema node, read loosely: the schema is data here. */
export type SchemaNode = { readonly [key: string]: unknown };

export interface KeyRow {
  readonly key: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
}

export interface SchemaSection {
  readonly anchor: string;
  readonly heading: string;
  /** Paragraphs (or Markdown lists) before the table. */
  readonly intro: string[];
  readonly rows: KeyRow[];
  /** Paragraphs after the table. */
  readonly outro: string[];
}

type Kind = 'none' | 'object' | 'map' | 'list' | 'anyOf' | 'scalar';

const DEFINITIONS = FORMAT_SCHEMA.definitions as unknown as Readonly<Record<string, SchemaNode>>;

/** Placeholders for the keys of a map, chosen by where the map stands (first match wins). */
const KEY_NAMES: readonly (readonly [RegExp, string])[] = [
  [/^(resources|states|endpoints)$/, 'resource'],
  [/^endpoints\.<resource>$/, 'operation'],
  [/\.(fields|properties)$/, 'field'],
  [/\.transitions$/, 'transition'],
  [/\.schemes$/, 'scheme'],
  [/\.scopes$/, 'scope'],
  [/\.(require|overrides)$/, 'endpoint-id'],
  [/^events\.catalog$/, 'event'],
  [/^errors\.catalog$/, 'code'],
  [/\.responses$/, 'status'],
  [/\.versions$/, 'version'],
];

/** Key patterns of the schema said in words; others are shown as the pattern itself. */
const PATTERN_WORDS: Readonly<Record<string, string>> = {
  '^[A-Za-z][A-Za-z0-9_-]*$': 'a letter, then letters, digits, `_` or `-`',
  '^[A-Za-z_$@][A-Za-z0-9_-]*$': 'a letter, `_`, `$` or `@`, then letters, digits, `_` or `-` (`_links`, `@type`: a member as the body carries it)',
  '^[a-z][a-z0-9-]*$': 'kebab-case: a lower-case letter, then lower-case letters, digits or `-`',
  '^[1-5][0-9][0-9]$': 'an HTTP status code (100 to 599)',
};

/** Value patterns that stand for a unit of the format. */
const PATTERN_TYPES: Readonly<Record<string, string>> = {
  '^[0-9]+(ms|s|m|h|d)$': 'duration (`30s`)',
  '^[0-9]+(B|KB|KiB|MB|MiB)$': 'size (`64KiB`)',
};

export function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

function props(node: SchemaNode): [string, SchemaNode][] {
  return isNode(node.properties) ? Object.entries(node.properties).filter((e): e is [string, SchemaNode] => isNode(e[1])) : [];
}

/** `{}`: a property a variant merely allows because the base declares it. */
function isEmpty(node: SchemaNode): boolean {
  return Object.keys(node).length === 0;
}

/** The node a `$ref` points at (with the referring node's own description kept), and the definition's name. */
export function deref(node: SchemaNode): { node: SchemaNode; ref?: string; description?: string } {
  const own = typeof node.description === 'string' ? node.description : undefined;
  if (typeof node.$ref !== 'string') return { node, description: own };
  const name = node.$ref.replace(/^#\/definitions\//, '');
  const target = DEFINITIONS[name];
  if (!target) throw new Error(`The schema refers to '${node.$ref}', which is not among its definitions.`);
  const theirs = typeof target.description === 'string' ? target.description : undefined;
  return { node: target, ref: name, description: own ?? theirs };
}

/** `{ none: reason }`: the statement that a part does not apply. */
function isNone(node: SchemaNode): boolean {
  const keys = props(node).map(([k]) => k);
  return keys.length === 1 && keys[0] === 'none' && asArray(node.required).includes('none');
}

function kindOf(node: SchemaNode): Kind {
  if (isNone(node)) return 'none';
  if (Array.isArray(node.anyOf)) return 'anyOf';
  if (isNode(node.properties) || Array.isArray(node.allOf)) return 'object';
  if (isNode(node.additionalProperties)) return 'map';
  if (isNode(node.items)) return 'list';
  return 'scalar';
}

function keyName(path: string): string {
  return `<${KEY_NAMES.find(([re]) => re.test(path))?.[1] ?? 'name'}>`;
}

function keyRule(node: SchemaNode): string | undefined {
  const pattern = isNode(node.propertyNames) ? node.propertyNames.pattern : undefined;
  if (typeof pattern !== 'string') return undefined;
  return PATTERN_WORDS[pattern] ?? `matching ${code(pattern)}`;
}

function alternatives(node: SchemaNode): SchemaNode[] {
  return asArray(node.anyOf).filter(isNode);
}

/** The `if` of an if/then variant, in words: `type: apiKey`. */
function condition(ifNode: SchemaNode): string {
  return props(ifNode).map(([k, v]) => `${k}: ${String(v.const)}`).join(', ');
}

function variants(node: SchemaNode): { when: string; then: SchemaNode }[] {
  return asArray(node.allOf).filter(isNode).flatMap((part) => (isNode(part.if) && isNode(part.then) ? [{ when: condition(part.if), then: part.then }] : []));
}

/** Alternatives joined by "or"; by "; or" when one of them is itself a list of values. */
function joinAlternatives(texts: readonly string[]): string {
  return texts.join(texts.some((t) => t.includes(', ')) ? '; or ' : ' or ');
}

/** A value type inside "list of ..." or "map of ... to ...", parenthesized when it has alternatives. */
function nested(text: string): string {
  return / or /.test(text) ? `(${text})` : text;
}

export class SchemaWalker {
  /** Where each definition was documented: later references are read at that path, so they link there. */
  readonly defPaths = new Map<string, string>();
  /** Paths of keys the schema gives no description for: reported, not hidden. */
  readonly undocumented: string[] = [];
  private sections: SchemaSection[] = [];

  /** Documents the value of one top-level key (a part) and returns its sections in order. */
  walk(path: string, node: SchemaNode): SchemaSection[] {
    this.sections = [];
    this.document(path, node, [], true);
    return this.sections;
  }

  /** The anchor of the section that documents `node` at `path`, if it has one. */
  anchorOf(path: string, node: SchemaNode): string | undefined {
    const { node: n, ref } = deref(node);
    if (ref && this.defPaths.has(ref)) path = this.defPaths.get(ref)!;
    switch (kindOf(n)) {
      case 'object': return slug(path);
      case 'map': return this.anchorOf(`${path}.${keyName(path)}`, n.additionalProperties as SchemaNode);
      case 'list': return this.anchorOf(`${path}[]`, n.items as SchemaNode);
      case 'anyOf': {
        const structured = this.structured(path, n);
        return structured.length ? this.anchorOf(structured[0]!.path, structured[0]!.node) : undefined;
      }
      default: return undefined;
    }
  }

  /** What a value is, in a few words, linking to the section of any object within it. */
  typeText(path: string, node: SchemaNode): string {
    const { node: n, ref } = deref(node);
    if (ref && this.defPaths.has(ref)) path = this.defPaths.get(ref)!;
    const kind = kindOf(n);
    if (kind === 'none') return '`{ none: reason }`';
    if (kind === 'anyOf') {
      const structured = this.structured(path, n);
      return joinAlternatives(alternatives(n).map((alt) => this.typeText(structured.find((s) => s.node === alt)?.path ?? path, alt)));
    }
    if ('const' in n) return code(n.const);
    if (Array.isArray(n.enum)) return n.enum.length === 1 ? code(n.enum[0]) : `one of ${n.enum.map(code).join(', ')}`;
    const types = asArray(n.type).map(String);
    if (types.length === 0) {
      if (kind === 'object') types.push('object');
      else if (kind === 'map') types.push('object');
      else if (kind === 'list') types.push('array');
    }
    if (types.length === 0) return 'any value';
    const at = kind === 'object' ? this.anchorOf(path, node) : undefined;
    return joinAlternatives(types.map((t) => this.singleType(path, n, t, kind, at)));
  }

  private singleType(path: string, n: SchemaNode, type: string, kind: Kind, at: string | undefined): string {
    switch (type) {
      case 'string': {
        if (typeof n.pattern === 'string' && PATTERN_TYPES[n.pattern]) return PATTERN_TYPES[n.pattern]!;
        const parts = [typeof n.format === 'string' ? `string (${n.format})` : 'string'];
        if (typeof n.pattern === 'string') parts.push(`matching ${code(n.pattern)}`);
        return parts.join(' ');
      }
      case 'integer':
      case 'number': {
        if (typeof n.minimum === 'number' && typeof n.maximum === 'number') return `${type}, ${n.minimum} to ${n.maximum}`;
        const bounds: string[] = [];
        if (typeof n.minimum === 'number') bounds.push(`≥ ${n.minimum}`);
        if (typeof n.exclusiveMinimum === 'number') bounds.push(`> ${n.exclusiveMinimum}`);
        if (typeof n.maximum === 'number') bounds.push(`≤ ${n.maximum}`);
        if (typeof n.exclusiveMaximum === 'number') bounds.push(`< ${n.exclusiveMaximum}`);
        return [type, ...bounds].join(' ');
      }
      case 'array': {
        const items = isNode(n.items) ? ` of ${nested(this.typeText(`${path}[]`, n.items))}` : '';
        const min = typeof n.minItems === 'number' && n.minItems > 0 ? `, at least ${n.minItems}` : '';
        return `list${items}${min}`;
      }
      case 'object': {
        if (kind === 'map') {
          const key = `${path}.${keyName(path)}`;
          return `map of ${code(keyName(path))} to ${nested(this.typeText(key, n.additionalProperties as SchemaNode))}`;
        }
        return at ? `[object](#${at})` : 'object';
      }
      default: return type;
    }
  }

  /** The alternatives of an anyOf that need a section of their own, each with its path. */
  private structured(path: string, n: SchemaNode): { path: string; node: SchemaNode }[] {
    const alts = alternatives(n).filter((alt) => kindOf(deref(alt).node) !== 'none' && this.anchorOf(path, alt) !== undefined);
    return alts.map((node, i) => ({ node, path: alts.length > 1 ? `${path} (form ${i + 1})` : path }));
  }

  private describe(path: string, node: SchemaNode): string {
    const { description } = deref(node);
    if (description === undefined) this.undocumented.push(path);
    return description ?? '';
  }

  private document(path: string, node: SchemaNode, intro: string[], top = false): void {
    const { node: n, ref, description } = deref(node);
    if (ref) {
      if (this.defPaths.has(ref)) return;
      this.defPaths.set(ref, path);
    }
    const lines = [...intro];
    if (description && !top && !lines.includes(description)) lines.push(description);
    switch (kindOf(n)) {
      case 'object':
        this.documentObject(path, n, lines);
        return;
      case 'map': {
        const key = keyName(path);
        const rule = keyRule(n);
        const more = rule ? [`${code(key)}: ${rule}.`] : [];
        this.document(`${path}.${key}`, n.additionalProperties as SchemaNode, [...lines, ...more]);
        return;
      }
      case 'list':
        this.document(`${path}[]`, n.items as SchemaNode, lines);
        return;
      case 'anyOf': {
        const structured = this.structured(path, n);
        if (structured.length === 0) return;
        const forms = alternatives(n).map((alt) => {
          const altPath = structured.find((s) => s.node === alt)?.path ?? path;
          const said = deref(alt).description;
          const here = altPath === path && kindOf(deref(alt).node) === 'object';
          return `- ${here ? 'an object with the keys below' : this.typeText(altPath, alt)}${said ? `: ${said}` : ''}`;
        });
        const written = top ? [] : [`${code(path)} is written as one of:\n\n${forms.join('\n')}`];
        for (const s of structured) this.document(s.path, s.node, [...lines, ...written]);
        return;
      }
      default:
    }
  }

  private documentObject(path: string, n: SchemaNode, intro: string[], variant?: string): void {
    const heading = variant ? `${path} when ${code(variant)}` : path;
    const section: SchemaSection = { anchor: slug(heading), heading: code(path) + (variant ? ` when ${code(variant)}` : ''), intro, rows: [], outro: [] };
    this.sections.push(section);
    const required = new Set(asArray(n.required).map(String));
    if (n.minProperties === 1 && n.maxProperties === 1) section.intro.push('Exactly one of these keys.');
    else {
      if (typeof n.minProperties === 'number') section.intro.push(`At least ${n.minProperties} of these keys.`);
      if (typeof n.maxProperties === 'number') section.intro.push(`At most ${n.maxProperties} of these keys.`);
    }
    const keys = props(n).filter(([, prop]) => !isEmpty(prop));
    for (const [key, prop] of keys) this.document(`${path}.${key}`, prop, []);
    for (const [key, prop] of keys) {
      section.rows.push({ key, type: this.typeText(`${path}.${key}`, prop), required: required.has(key), description: this.describe(`${path}.${key}`, prop) });
    }
    const cases = variants(n);
    if (cases.length) {
      const links = cases.map((c) => `[${code(c.when)}](#${slug(`${path} when ${code(c.when)}`)})`);
      section.outro.push(`The other keys depend on the value: ${links.join(', ')}.`);
      for (const c of cases) this.documentObject(path, c.then, [`The keys of ${code(path)} when it says ${code(c.when)}, besides ${code(c.when.split(':')[0]!)}.`], c.when);
    }
  }
}
