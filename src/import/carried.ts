/**
 * The import of a document `svcspec export` wrote (OpenAPI 3.1 or AsyncAPI 3.0): the spec is
 * read back from its `x-svcspec-*` extensions (src/spec/conventions/extensions.ts), in the
 * format's own words, and loaded as `svcspec check` loads a spec. That makes import the
 * mirror of export: every part, every version, states, events, limits included.
 * The OpenAPI description beside the extensions is a view of the same spec; an operation it
 * has that the carried spec has not (added by hand after the export) is reported, not merged.
 */
import { loadSpecText, byPosition } from '../load/index.ts';
import { SUBSCRIPTION_ROUTES } from '../spec/conventions/events.ts';
import { diagnostic, hasErrors, type Diagnostic, type Result } from '../spec/diagnostics.ts';
import { MARK, partExtension, type CarriedSpec } from '../spec/conventions/extensions.ts';
import { PART_NAMES, type PartName } from '../spec/parts.ts';
import { parsePointer } from '../spec/pointer.ts';
import type { RawDocument } from '../spec/serialize.ts';
import { IMPORT_CODES } from './codes.ts';
import { isObject } from './openapi/context.ts';
import type { ReadDocument } from './openapi/read.ts';
import type { ImportOptions, ImportResult } from './openapi/index.ts';
import { renderJson, renderYaml } from './write.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function importCarried(file: string, read: ReadDocument, carried: CarriedSpec, options: ImportOptions): Result<ImportResult | undefined> {
  const { doc, locate } = read;
  const format = typeof doc.asyncapi === 'string' ? `AsyncAPI ${doc.asyncapi}` : `OpenAPI ${String(doc.openapi)}`;
  const findings: Diagnostic[] = [
    diagnostic(IMPORT_CODES.carried, { file, parts: carried.parts.length ? carried.parts.join(', ') : 'no parts', format: format.split(' ')[0] }, { pointer: `/${MARK}`, location: locate(`/${MARK}`) }),
  ];
  const source = `${file} (${format})`;
  let loaded = loadCarried(carried.document, source, findings, options);
  if (!loaded.ok) {
    const d = loaded.diagnostics.filter((x) => x.severity === 'error');
    const first = d[0];
    const part = first?.pointer !== undefined ? parsePointer(first.pointer)[0] : undefined;
    const pointer = part && (PART_NAMES as readonly string[]).includes(part) ? `/${partExtension(part as PartName)}` : `/${MARK}`;
    const reason = d.slice(0, 3).map((x) => `${x.pointer ? `at ${x.pointer}: ` : ''}${x.message}`).join('; ') + (d.length > 3 ? ` (and ${d.length - 3} more)` : '');
    return { value: undefined, diagnostics: [...findings, diagnostic(IMPORT_CODES.carriedInvalid, { reason }, { pointer, location: locate(pointer) })] };
  }
  // Operations the document describes that the carried spec does not (export writes e.path, e.method).
  if (isObject(doc.paths)) {
    const known = new Set(loaded.spec.endpoints.map((e) => `${e.method} ${e.path}`));
    // The subscription API export writes of part 6 (src/export/openapi/subscriptions.ts) is the carried events', not an endpoint.
    const hooks = loaded.spec.events.webhooks;
    if (hooks?.subscriptions === 'api' && hooks.path) for (const r of SUBSCRIPTION_ROUTES) known.add(`${r.method} ${hooks.path}${r.suffix}`);
    const extra: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!isObject(item)) continue;
      for (const m of METHODS) if (m in item && !known.has(`${m.toUpperCase()} ${path}`)) extra.push(`${m.toUpperCase()} ${path}`);
    }
    if (extra.length) {
      findings.push(diagnostic(IMPORT_CODES.carriedExtra, { count: extra.length, example: extra[0] }, { pointer: '/paths', location: locate('/paths') }));
      // The notes under part 4 moved the lines: load the text as it is written.
      const again = loadCarried(carried.document, source, findings, options);
      if (again.ok) loaded = again;
    }
  }
  const sorted = byPosition(findings);
  return {
    value: { document: carried.document, yaml: loaded.yaml, json: renderJson(carried.document), spec: loaded.spec, openapi: format },
    diagnostics: sorted,
  };
}

/** The carried parts written as `import` writes any spec (with its notes), and loaded from that text. */
function loadCarried(document: RawDocument, source: string, findings: readonly Diagnostic[], options: ImportOptions) {
  const yaml = renderYaml(document, { source, findings: byPosition(findings) });
  const loaded = loadSpecText(yaml, { file: options.file ?? 'imported.yaml', kind: 'yaml' });
  if (!loaded.value || hasErrors(loaded.diagnostics)) return { ok: false as const, diagnostics: loaded.diagnostics };
  return { ok: true as const, spec: loaded.value, yaml };
}
