/**
 * Part 7 in OpenAPI: the error body's schema (RFC 9457 problem details with a `code`
 * member, or the spec's custom shape, as src/serve/errors.ts renders it) and, for each
 * endpoint, one response per status it can answer with an error: the codes it declares
 * plus the runtime situations of src/spec/http-errors.ts that apply to it, each resolved
 * to the spec's own code exactly as the service resolves it (resolveSituations, src/spec/http-errors.ts).
 */
import type { ErrorShape, Spec } from '../../spec/model.ts';
import { resolveSituations } from '../../spec/http-errors.ts';
import { errorShape } from '../../spec/conventions/errors.ts';
import type { ErrorCase } from '../../spec/conventions/situations.ts';
import type { JsonSchema } from '../schema.ts';

export const ERROR_SCHEMA = 'Error';
export const VIOLATION_SCHEMA = 'FieldViolation';

/** The error body, whatever its status: every member the shape names. */
export function errorSchemas(spec: Spec): { shape: ErrorShape; schemas: Record<string, JsonSchema> } {
  const shape = errorShape(spec);
  const m = shape.members;
  const problem = shape.kind === 'problem';
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  // renderError (src/serve/errors.ts): type and instance only for problem details; detail and errors when there are some.
  if (problem && m.type) {
    properties[m.type] = { type: 'string', format: 'uri', description: 'RFC 9457 §3.1.1: the problem type, `urn:svcspec:problem:<code>`.' };
    required.push(m.type);
  }
  if (m.title) {
    properties[m.title] = { type: 'string', description: 'The title of the error code, the same for every occurrence.' };
    required.push(m.title);
  }
  if (m.status) {
    properties[m.status] = { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status.' };
    required.push(m.status);
  }
  if (m.detail) properties[m.detail] = { type: 'string', description: 'What went wrong in this occurrence.' };
  if (problem && m.instance) {
    properties[m.instance] = { type: 'string', format: 'uri-reference', description: 'The request target of this occurrence.' };
    required.push(m.instance);
  }
  if (m.code) {
    properties[m.code] = { type: 'string', description: 'The error code, from the errors catalog.' };
    required.push(m.code);
  }
  if (m.errors) properties[m.errors] = { type: 'array', items: { $ref: `#/components/schemas/${VIOLATION_SCHEMA}` }, description: 'With a validation error: every failing member, with its JSON pointer.' };
  const error: JsonSchema = {
    type: 'object',
    description: problem ? 'RFC 9457 problem details (application/problem+json) with a `code` member naming the error code.' : `The spec's error body (${shape.mediaType}).`,
    properties, required,
  };
  const violation: JsonSchema = {
    type: 'object',
    properties: {
      pointer: { type: 'string', description: 'A JSON pointer into the body; `/query/<name>` for a query parameter, `/headers/<name>` for a header.' },
      message: { type: 'string' },
    },
    required: ['pointer', 'message'],
  };
  return { shape, schemas: { [ERROR_SCHEMA]: error, ...(m.errors ? { [VIOLATION_SCHEMA]: violation } : {}) } };
}

/** The schema of the error responses at one status: the error body, its code one of those listed. */
export function errorResponseSchema(shape: ErrorShape, status: number, cases: readonly ErrorCase[]): JsonSchema {
  const m = shape.members;
  const properties: Record<string, JsonSchema> = {};
  if (cases.length && m.code) properties[m.code] = cases.length === 1 ? { const: cases[0].code } : { enum: cases.map((c) => c.code) };
  if (m.status) properties[m.status] = { const: status };
  // Members the service adds to some errors (src/serve/states.ts, src/serve/auth/index.ts).
  if (cases.some((c) => c.situation === 'invalid-transition')) {
    properties.currentState = { type: ['string', 'null'], description: 'With invalid-transition: the state the record is in.' };
    properties.allowedTransitions = { type: 'array', items: { type: 'string' }, description: 'With invalid-transition: the transitions allowed from that state.' };
  }
  if (cases.some((c) => c.situation === 'forbidden')) {
    properties.missingScopes = { type: 'array', items: { type: 'string' }, description: 'With forbidden: the scopes the credentials lack.' };
  }
  return { $ref: `#/components/schemas/${ERROR_SCHEMA}`, ...(Object.keys(properties).length ? { type: 'object', properties } : {}) };
}

export function errorDescription(cases: readonly ErrorCase[], declared?: string): string {
  const lines = cases.map((c) => `\`${c.code}\`: ${c.title}${c.when ? `. ${c.when}` : ''}`);
  return [declared, ...lines].filter(Boolean).join('\n\n') || 'An error, in the declared error shape.';
}
