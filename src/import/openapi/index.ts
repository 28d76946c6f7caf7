/**
 * The OpenAPI 3.0 / 3.1 import, the mirror of the export (src/export/openapi): an OpenAPI
 * document to a nine-part spec. The document is read and validated (./read.ts), then each
 * part that OpenAPI can give is built into the normalized model, and the model is written in
 * the authoring format by the project's one serializer (src/spec/serialize.ts):
 *
 *   info                                 1 purpose (name, summary; users are a gap)
 *   components.schemas                   2 resources and their fields (./resources.ts, ./schema.ts)
 *   paths                                4 endpoints (./endpoints.ts, ./bodies.ts)
 *   securitySchemes + security           5 authentication (./authentication.ts)
 *   4xx/5xx/default responses            7 errors: the shape; no codes (./errors.ts)
 *   list query parameters                8 limits: the pagination, where stated (./pagination.ts)
 *   -                                    3 states, 6 events, 9 versioning (and 8 otherwise): gaps (./parts.ts)
 *
 * Nothing is supplied where the document is silent; what it says that the format cannot
 * hold, and every part left a gap, is a finding pointing into the OpenAPI document.
 */
import { loadSpecText, byPosition } from '../../load/index.ts';
import { diagnostic, hasErrors, type Result } from '../../spec/diagnostics.ts';
import type { Authentication, Errors, PartState, Spec, SpecSource } from '../../spec/model.ts';
import { PART_NAMES, type PartName } from '../../spec/parts.ts';
import { pointer } from '../../spec/pointer.ts';
import { toDocument, type RawDocument } from '../../spec/serialize.ts';
import { IMPORT_CODES } from '../codes.ts';
import { renderJson, renderYaml } from '../write.ts';
import { importAuthentication } from './authentication.ts';
import { report, type ImportContext } from './context.ts';
import { importEndpoints } from './endpoints.ts';
import { importErrors } from './errors.ts';
import { importPurpose, reportGap, reportUnsayableParts } from './parts.ts';
import { readDocument, readOpenApi } from './read.ts';
import { carriedSpec, type CarriedSpec } from '../../spec/conventions/extensions.ts';
import { importCarried } from '../carried.ts';
import { importResources, listOf, requestShapes, operations, schemaUsage } from './resources.ts';

export interface ImportOptions {
  /** The name the spec will have (for the positions of the returned Spec); default `imported.yaml`. */
  readonly file?: string;
  /** An AsyncAPI document svcspec exported: its part 6 replaces the imported spec's (`--events`). */
  readonly events?: string;
}

export interface ImportResult {
  /** The spec in the authoring format, every given part (gaps left out, as toDocument writes them). */
  readonly document: RawDocument;
  /** The spec as YAML, with each part's comment and the import's notes. */
  readonly yaml: string;
  /** The spec as JSON, all nine parts, gaps as `{}`. */
  readonly json: string;
  /** The imported spec, loaded from `yaml` as `svcspec check` would load it. */
  readonly spec: Spec;
  /** The OpenAPI version read (`3.0.2`). */
  readonly openapi: string;
}

export async function importOpenApi(file: string, options: ImportOptions = {}): Promise<Result<ImportResult | undefined>> {
  const raw = await readDocument(file);
  if (!raw.value) return { value: undefined, diagnostics: raw.diagnostics };
  // A document svcspec exported carries its spec (conventions/extensions.ts): read it back whole.
  const read6 = options.events === undefined ? undefined : await eventsOf(options.events);
  if (read6 && !read6.value) return { value: undefined, diagnostics: read6.diagnostics };
  const events = read6?.value;
  const carried = carriedSpec(raw.value.doc);
  if (carried) return importCarried(file, raw.value, events ? withEvents(carried, events) : carried, options);
  if (typeof raw.value.doc.asyncapi === 'string') {
    return { value: undefined, diagnostics: [raw.value.notOpenApi(`it is AsyncAPI ${raw.value.doc.asyncapi} without svcspec's x-svcspec mark; AsyncAPI does not say which operation emits a message (the 'on' of an event), so only an AsyncAPI document svcspec exported is imported`, '/asyncapi')] };
  }
  const read = await readOpenApi(file, raw.value);
  if (!read.value) return { value: undefined, diagnostics: read.diagnostics };
  const source = read.value;
  const ctx: ImportContext = { doc: source.doc, version: source.version, locate: source.locate, findings: [...read.diagnostics], notCarried: new Map() };

  const ops = operations(ctx);
  const purpose = importPurpose(ctx);
  const usage = schemaUsage(ctx, ops);
  const imported = importResources(ctx, usage, requestShapes(ctx, ops, usage));
  const { resources, endpoints, placed, pagination } = importEndpoints(imported.scope, ops, imported.resources);
  const silent = resources.filter((r) => r.id === undefined);
  // Every one named: it is the list of what is left to write, and one cut short hides which (Hydra's oAuth2Client was among '34 more').
  if (silent.length) report(ctx, IMPORT_CODES.resourceId, { resources: listOf(silent.map((r) => r.name), Infinity) }, '/components/schemas');
  const auth = importAuthentication(ctx, placed);
  const errors = importErrors(imported.scope, ops);
  const statements: Record<PartName, 'given' | 'gap'> = {
    purpose: purpose.name !== undefined || purpose.summary !== undefined ? 'given' : 'gap',
    resources: resources.length ? 'given' : 'gap',
    states: 'gap',
    endpoints: endpoints.length ? 'given' : 'gap',
    authentication: auth.gap === undefined ? 'given' : 'gap',
    events: 'gap',
    errors: errors.gap === undefined ? 'given' : 'gap',
    // Only the pagination, where the list endpoints' parameters state it (./pagination.ts).
    limits: pagination ? 'given' : 'gap',
    versioning: 'gap',
  };
  if (statements.resources === 'gap') reportGap(ctx, 'resources', 'it has no object schemas in components.schemas, nor operations', '');
  if (statements.endpoints === 'gap') reportGap(ctx, 'endpoints', 'it has no operations with a method the format has', '/paths');
  if (auth.gap !== undefined) reportGap(ctx, 'authentication', auth.gap, '/components');
  if (errors.gap !== undefined) reportGap(ctx, 'errors', errors.gap, '/paths');
  reportUnsayableParts(ctx, resources, ops, pagination !== undefined);
  for (const [keyword, pointers] of ctx.notCarried) report(ctx, IMPORT_CODES.notCarried, { keyword, count: pointers.size }, [...pointers][0]);

  const spec: Spec = {
    formatVersion: '1',
    source: NO_SOURCE,
    parts: Object.fromEntries(PART_NAMES.map((p): [PartName, PartState] => [p, { name: p, statement: statements[p], pointer: pointer(p) }])) as Record<PartName, PartState>,
    purpose,
    resources,
    states: [],
    endpoints,
    authentication: auth.gap === undefined ? auth.authentication : NO_AUTHENTICATION,
    events: { catalog: [] },
    errors: errors.gap === undefined ? errors.errors : NO_ERRORS,
    limits: pagination ? { pagination } : {},
    versioning: { versions: [], pointer: pointer('versioning') },
  };
  const document = toDocument(spec);
  if (events) {
    if (events.events === undefined) delete document.events;
    else document.events = events.events;
  }
  const findings = byPosition(ctx.findings);
  const yaml = renderYaml(document, { source: `${file} (OpenAPI ${source.openapi})`, findings });
  // The written spec must load as check loads it; if it does not, that is a bug of the import.
  const loaded = loadSpecText(yaml, { file: options.file ?? 'imported.yaml', kind: 'yaml' });
  if (!loaded.value || hasErrors(loaded.diagnostics)) {
    throw new Error(`the imported spec does not load: ${loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.location?.line}:${d.location?.column} ${d.message}`).join('; ')}`);
  }
  return { value: { document, yaml, json: renderJson(document), spec: loaded.value, openapi: source.openapi }, diagnostics: findings };
}

/** The model built here is written, then loaded again: it has no source of its own. */
const NO_SOURCE: SpecSource = {
  file: '<import>',
  kind: 'yaml',
  locate: () => ({ file: '<import>', line: 1, column: 1 }),
  locateKey: () => ({ file: '<import>', line: 1, column: 1 }),
  has: () => false,
};

const NO_AUTHENTICATION: Authentication = { schemes: [], scopes: [], defaultScopes: [], rules: [] };
const NO_ERRORS: Errors = { catalog: [] };


/** Part 6 as an AsyncAPI document svcspec exported carries it (`{events}` empty: a gap there). */
async function eventsOf(file: string): Promise<Result<{ events?: unknown } | undefined>> {
  const raw = await readDocument(file);
  if (!raw.value) return { value: undefined, diagnostics: raw.diagnostics };
  const fail = (reason: string, at: string) => ({ value: undefined, diagnostics: [diagnostic(IMPORT_CODES.eventsNotAsyncApi, { file, reason }, { pointer: at, location: raw.value!.locate(at) })] });
  if (typeof raw.value.doc.asyncapi !== 'string') return fail('it is not an AsyncAPI document (no asyncapi member)', '');
  const carried = carriedSpec(raw.value.doc);
  if (!carried) return fail("it has no x-svcspec mark: AsyncAPI does not say which operation emits a message (the 'on' of an event), so only svcspec's own export is read", '/asyncapi');
  return { value: carried.parts.includes('events') ? { events: carried.document.events } : {}, diagnostics: [] };
}

function withEvents(carried: CarriedSpec, events: { events?: unknown }): CarriedSpec {
  const document = { ...carried.document };
  if (events.events === undefined) delete document.events;
  else document.events = events.events;
  const parts = carried.parts.filter((p) => p !== 'events');
  return { document, parts: events.events === undefined ? parts : [...parts, 'events'] };
}
