/**
 * Reading the OpenAPI document: the file, its YAML or JSON with the position of every node
 * (the project's own parser, so findings name file:line:column), the version, and validity
 * as @apidevtools/swagger-parser judges it against the official schema. A document with
 * references to other files is bundled into one, its references made internal.
 * Every failure is a finding, never a throw.
 */
import { extname } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { readSourceFile } from '../../load/index.ts';
import { SourceMap } from '../../load/source.ts';
import { parseYaml } from '../../load/yaml.ts';
import { diagnostic, type Diagnostic, type Result } from '../../spec/diagnostics.ts';
import type { Location } from '../../spec/model.ts';
import { IMPORT_CODES } from '../codes.ts';
import { isObject, type Json } from './context.ts';
import { jsonLocator } from './json-positions.ts';
import { as31 } from './v32.ts';

export interface OpenApiSource {
  readonly file: string;
  /** The `openapi` member: 3.0.x, 3.1.x or 3.2.x (read as 3.1). */
  readonly openapi: string;
  readonly version: '3.0' | '3.1';
  readonly doc: Json;
  readonly locate: (pointer: string) => Location;
}

export interface ReadDocument {
  readonly doc: Json;
  readonly locate: (pointer: string) => Location;
  /** A finding about the document as a whole, at `pointer`. */
  readonly notOpenApi: (reason: string, pointer?: string) => Diagnostic;
}

/** The file's YAML or JSON as a map, with the position of every node; any failure is a finding. */
export async function readDocument(file: string): Promise<Result<ReadDocument | undefined>> {
  const fail = (d: Diagnostic) => ({ value: undefined, diagnostics: [d] });
  const text = await readSourceFile(file);
  if (typeof text !== 'string') return fail(text);
  const sourceMap = new SourceMap(file, extname(file).toLowerCase() === '.json' ? 'json' : 'yaml');
  const notOpenApi = (reason: string, pointer = '') => diagnostic(IMPORT_CODES.notOpenApi, { file, reason }, { pointer, location: sourceMap.locate(pointer) });
  if (text.trim() === '') return fail(notOpenApi('the file is empty'));
  // Large documents are JSON: JSON.parse and one scan for positions (./json-positions.ts) are
  // many times faster than composing YAML. Text JSON.parse refuses goes the YAML way, for its message.
  if (sourceMap.kind === 'json') {
    const data = parseJson(text);
    if (isObject(data)) {
      const locate = jsonLocator(file, text);
      return { value: { doc: data, locate, notOpenApi: (reason, pointer = '') => diagnostic(IMPORT_CODES.notOpenApi, { file, reason }, { pointer, location: locate(pointer) }) }, diagnostics: [] };
    }
  }
  const parsed = parseYaml(text, { file, language: sourceMap.kind === 'json' ? 'JSON' : 'YAML', sourceMap });
  if (parsed.data === undefined || parsed.diagnostics.length > 0) return { value: undefined, diagnostics: parsed.diagnostics };
  const doc = parsed.data;
  if (!isObject(doc)) return fail(notOpenApi(`its top level is ${Array.isArray(doc) ? 'a list' : doc === null ? 'empty' : `a ${typeof doc}`}, not a map`));
  return { value: { doc, locate: (p) => sourceMap.locate(p), notOpenApi }, diagnostics: [] };
}

export async function readOpenApi(file: string, read?: ReadDocument): Promise<Result<OpenApiSource | undefined>> {
  const fail = (d: Diagnostic) => ({ value: undefined, diagnostics: [d] });
  if (!read) {
    const r = await readDocument(file);
    if (!r.value) return { value: undefined, diagnostics: r.diagnostics };
    read = r.value;
  }
  const { doc, locate } = read;
  const notOpenApi = (reason: string, pointer = '') => fail(read.notOpenApi(reason, pointer));
  if ('swagger' in doc) return notOpenApi(`it is Swagger ${String(doc.swagger)}; convert it to OpenAPI 3 first`, '/swagger');
  if (!('openapi' in doc)) return notOpenApi("it has no 'openapi' member naming its version");
  if (typeof doc.openapi !== 'string') return notOpenApi(`its 'openapi' version must be a string ("3.1.0"), not ${JSON.stringify(doc.openapi)}`, '/openapi');
  const m = /^3\.([012])\.\d+$/.exec(doc.openapi);
  if (!m) return notOpenApi(`its version is ${doc.openapi}; svcspec imports 3.0.x, 3.1.x and 3.2.x`, '/openapi');
  const version = m[1] === '0' ? '3.0' : '3.1';
  // 3.2 is read as 3.1 once its own constructs are out (./v32.ts), each reported where it stands.
  const v32 = m[1] === '2' ? as31(doc) : undefined;
  const findings = (v32?.taken ?? []).map((t) => diagnostic(IMPORT_CODES.openapi32, { construct: t.construct, done: t.done, count: t.pointers.length }, { pointer: t.pointers[0], location: locate(t.pointers[0]) }));
  const readable = v32?.doc ?? doc;
  const invalid = (reason: string, pointer = '') =>
    fail(diagnostic(IMPORT_CODES.invalid, { file, version: doc.openapi, reason }, { pointer, location: locate(pointer) }));
  if (!isObject(doc.paths) && !(version === '3.1' && (isObject(doc.webhooks) || isObject(doc.components)))) return invalid("it has no 'paths'");
  const external = hasExternalRef(doc);
  try {
    // The document already parsed, copied (validation dereferences in place); by its file only
    // where it refers to other files, which resolve against its place.
    if (external && !v32) await SwaggerParser.validate(file);
    else await SwaggerParser.validate(forValidator(readable) as never);
  } catch (error) {
    const { reason, pointer } = validationReason(error);
    return invalid(reason, pointer);
  }
  let bundled: Json = readable;
  if (external && !v32) {
    try {
      bundled = (await SwaggerParser.bundle(file)) as unknown as Json;
    } catch (error) {
      return invalid(validationReason(error).reason);
    }
  }
  return { value: { file, openapi: doc.openapi, version, doc: bundled, locate }, diagnostics: findings };
}

/** swagger-parser's message in our words: its first problems, and the pointer of the first. */
function validationReason(error: unknown): { reason: string; pointer?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message.split('\n').map((l) => l.trim()).filter((l) => l && !/validation failed\.?$/i.test(l));
  const shown = lines.slice(0, 3).map((l) => l.replace(/\.$/, '').replace(/^#(\/\S*) /, 'at $1, it '));
  const more = lines.length > 3 ? ` (and ${lines.length - 3} more)` : '';
  const pointer = /^#(\/\S*)/.exec(lines[0] ?? '')?.[1];
  return { reason: `${shown.join('; ') || 'it could not be read'}${more}`, ...(pointer ? { pointer: decodeURIComponent(pointer) } : {}) };
}

/**
 * Whether the document refers to other files. A `$ref` inside a specification extension
 * (`x-topics: [{content: {$ref: ./docs/getting-started.md}}]`, Bump.sh's Train Travel API) is
 * the extension's own business, not an OpenAPI reference: it is not followed.
 */
function hasExternalRef(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasExternalRef);
  if (!isObject(value)) return false;
  if (typeof value.$ref === 'string' && !value.$ref.startsWith('#')) return true;
  return Object.entries(value).some(([key, v]) => !key.startsWith('x-') && hasExternalRef(v));
}

/**
 * The copy the validator reads: without the extensions that hold a `$ref` (hasExternalRef),
 * which it would follow, and with each HTTP security scheme's name in lower case: an
 * authentication scheme is case-insensitive (RFC 9110 §11.1), and the OpenAPI 3.1 schema the
 * validator bundles wants `bearer` where the current one takes `Bearer` (the OAI's own
 * tictactoe example writes it so).
 */
function forValidator(doc: Json): unknown {
  const copy = withoutExtensionRefs(doc) as Json;
  const schemes = isObject(copy.components) && isObject(copy.components.securitySchemes) ? copy.components.securitySchemes : {};
  for (const scheme of Object.values(schemes)) if (isObject(scheme) && scheme.type === 'http' && typeof scheme.scheme === 'string') scheme.scheme = scheme.scheme.toLowerCase();
  return copy;
}

/** A copy without the extensions that hold a `$ref` (see hasExternalRef). */
function withoutExtensionRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutExtensionRefs);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (!(key.startsWith('x-') && holdsRef(v))) out[key] = withoutExtensionRefs(v);
  return out;
}

function holdsRef(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsRef);
  return isObject(value) && (typeof value.$ref === 'string' || Object.values(value).some(holdsRef));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}
