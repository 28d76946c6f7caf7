/** Shared by the export tests: the specs to export, and the validators the exports must pass. */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser } from '@asyncapi/parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadSpec } from '../../src/load/index.ts';
import type { Spec } from '../../src/spec/model.ts';
import { mustLoad } from '../support/spec.ts';

export const EXAMPLES = ['library.yaml', 'orders.yaml', 'helpdesk.yaml', 'json-server.yaml', 'tracker.yaml', 'empty.yaml'];

export async function example(name: string): Promise<Spec> {
  const r = await loadSpec(new URL(`../../examples/${name}`, import.meta.url).pathname);
  if (!r.value) throw new Error(`example ${name} did not load`);
  return r.value;
}

/** Specs like the founding document: every part a gap, or parts stated as none. */
export const GAP_CASES: Readonly<Record<string, () => Spec>> = {
  'every part a gap (Markdown, like the founding document)': () => mustLoad([
    '# Service Interface Specification', '',
    '## What the service does', '', '- The service\'s purpose: not shown.', '',
    '## Resources and their fields', '', '- Resources handled by the service: not shown.', '',
    '## States and transitions', '', '- States of any resource: not shown.', '',
    '## Endpoints', '', '- Operations of the service: not shown.', '',
    '## Authentication', '', '- The authentication scheme: not shown.', '',
    '## Events', '', '- Events emitted by the service: not shown.', '',
    '## Errors', '', '- Error codes: not shown.', '',
    '## Limits', '', '- Rate limits: not shown.', '',
    '## Versioning', '', '- How the service identifies its version: not shown.', '',
  ].join('\n'), 'markdown'),
  'resources and endpoints only, the rest none': () => mustLoad(`
svcspec: 1
purpose: { name: Notes, summary: Keeps notes. }
resources:
  note:
    plural: notes
    id: { field: id, assigned: sequence }
    fields:
      id: { type: integer, readOnly: true }
      title: { type: string, required: true, maxLength: 80 }
endpoints:
  note: [create, read, update, delete, list]
authentication: { none: "Anyone may call it." }
events: { none: "It emits no events." }
errors: { none: "Errors use the default shape." }
limits: { none: "No limits." }
versioning: { none: "One unnamed version." }
`),
};

/** OpenAPI 3.1: swagger-parser's validation (the official schema, every $ref resolved); it works on a copy. */
export async function openApiErrors(document: Record<string, unknown>): Promise<string[]> {
  try {
    await SwaggerParser.validate(structuredClone(document) as never);
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

let parser: Parser | undefined;

/** AsyncAPI 3.0: the parser's error-severity diagnostics (severity 0). */
export async function asyncApiErrors(document: Record<string, unknown>): Promise<string[]> {
  parser ??= new Parser();
  const diagnostics = await parser.validate(JSON.stringify(document));
  return diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code} at ${d.path.join('/')}: ${d.message}`);
}

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/**
 * A JSON Schema 2020-12 validator of the document's component schemas, strict: an unknown
 * keyword (other than our extensions) or a malformed schema fails to compile.
 */
export function schemaValidator(document: Record<string, unknown>): (ref: unknown, value: unknown) => string[] {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, logger: false });
  addFormats(ajv);
  for (const keyword of ['x-svcspec-states', 'x-svcspec-ref', 'x-svcspec-unique', 'x-svcspec-rules', 'x-svcspec-managed', 'x-svcspec-on-delete']) ajv.addKeyword({ keyword });
  const schemas = ((document.components as { schemas?: Record<string, object> } | undefined)?.schemas ?? {});
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(rebase(schema) as object, `doc:${name}`);
  let n = 0;
  return (schema, value) => {
    const validate = ajv.compile({ $id: `test:${n++}`, ...(rebase(schema) as object) });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

/** `#/components/schemas/X` refs read from the schemas registered as `doc:X`. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', 'doc:') : rebase(v)]));
  }
  return schema;
}
