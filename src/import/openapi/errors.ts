/**
 * Part 7 from the error responses (4xx, 5xx and `default`). Where their body schema is
 * visible, it becomes the error shape: RFC 9457 problem details (`application/problem+json`
 * with a `code` member) or a custom body, its members recognised by name (a body without a
 * code member, problem details without `code` among them, is a custom shape without one). OpenAPI documents
 * statuses, not error codes, so the catalog stays empty (reported); the endpoints keep their
 * error statuses.
 */
import type { ErrorMembers, Errors } from '../../spec/model.ts';
import { child, pointer } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { PROBLEM_MEMBERS } from '../../spec/conventions/errors.ts';
import { IMPORT_CODES } from '../codes.ts';
import { componentOf, isObject, jsonContent, report, resolve } from './context.ts';
import { isErrorResponse, statuses } from './bodies.ts';
import type { Operation } from './resources.ts';
import { mergeAllOf, type SchemaScope } from './schema.ts';

export type ImportedErrors = { readonly errors: Errors; readonly gap?: undefined } | { readonly gap: string };

interface Body {
  readonly name: string;
  readonly schema: unknown;
  readonly at: string;
  readonly mediaType: string;
  count: number;
}

/** Members by role, each recognised by the first of these names the body has. */
const ROLES: readonly [keyof ErrorMembers, readonly string[]][] = [
  ['code', ['code', 'errorCode', 'error_code', 'error']],
  ['title', ['title', 'message', 'error', 'msg']],
  ['status', ['status', 'statusCode', 'status_code']],
  ['detail', ['detail', 'details', 'description', 'error_description']],
  ['errors', ['errors', 'violations']],
  ['type', ['type']],
  ['instance', ['instance']],
];

export function importErrors(scope: SchemaScope, ops: readonly Operation[]): ImportedErrors {
  const { ctx } = scope;
  const codes = new Set<number>();
  const bodies = new Map<string, Body>();
  for (const op of ops) {
    for (const [status, value] of statuses(op)) {
      if (!isErrorResponse(op, status)) continue;
      if (/^\d+$/.test(status)) codes.add(Number(status));
      const r = resolve(ctx, value, child(op.pointer, 'responses', status));
      const json = r && jsonContent(r.node.content);
      if (!json || json.schema === undefined) continue;
      const at = child(r.pointer, 'content', json.mediaType, 'schema');
      const name = componentOf(json.schema) ?? at;
      const seen = bodies.get(name);
      if (seen) seen.count++;
      else bodies.set(name, { name, schema: json.schema, at, mediaType: json.mediaType, count: 1 });
    }
  }
  const statusList = [...codes].sort((a, b) => a - b).join(', ');
  if (bodies.size === 0) return { gap: codes.size ? `its error responses (${statusList}) show no body schema` : 'it documents no error responses' };
  const ranked = [...bodies.values()].sort((a, b) => b.count - a.count);
  // The one holding every member the others have, where one does (Lago's 404 and 422 bodies
  // add a machine `code` its 401 body lacks): the shape the others are parts of. Else the one used most.
  const membersOf = (b: Body): string[] => {
    const r = resolve(ctx, b.schema, b.at);
    const node = r ? mergeAllOf(scope, r.node, r.pointer) : {};
    return isObject(node.properties) ? Object.keys(node.properties) : [];
  };
  const held = new Map(ranked.map((b) => [b, membersOf(b)]));
  const widest = ranked.length > 1 ? ranked.find((b) => ranked.every((o) => held.get(o)!.every((n) => held.get(b)!.includes(n)))) : undefined;
  const chosen = widest ?? ranked[0];
  if (ranked.length > 1) {
    report(ctx, IMPORT_CODES.errorShapes, { count: ranked.length, schemas: ranked.map((b) => label(b)).join(', '), schema: label(chosen), how: widest ? 'the one holding every member of the others' : 'the one used most' }, chosen.at);
  }
  const r = resolve(ctx, chosen.schema, chosen.at);
  const node = r ? mergeAllOf(scope, r.node, r.pointer) : {};
  const names = isObject(node.properties) ? Object.keys(node.properties) : [];
  const members: Partial<Record<keyof ErrorMembers, string>> = {};
  const used = new Set<string>();
  for (const [role, candidates] of ROLES) {
    const found = candidates.find((c) => names.includes(c) && !used.has(c));
    if (found) {
      members[role] = found;
      used.add(found);
    }
  }
  if (members.title === undefined) {
    const nested = nestedError(scope, node, r?.pointer ?? chosen.at);
    if (nested) {
      report(ctx, IMPORT_CODES.errorNested, { schema: label(chosen), member: nested.member, found: nested.found }, chosen.at);
      return { gap: `its error bodies (${label(chosen)}) hold the error one level down, in '${nested.member}'` };
    }
    // A shape of the members there are (the format asks for one at least): OAuth 2.0's
    // {error, error_description} has its code and its detail, and no title (RFC 6749 §5.2).
    if (members.code === undefined && members.detail === undefined && members.status === undefined) {
      report(ctx, IMPORT_CODES.errorShape, { schema: label(chosen), role: 'title' }, chosen.at);
      return { gap: `its error bodies (${label(chosen)}) have no member svcspec recognises` };
    }
  }
  const problem = /^application\/problem\+json/i.test(chosen.mediaType) && members.code === 'code' && members.title === 'title';
  const listed = Object.entries(members).map(([role, name]) => `${role} in '${name}'`).join(', ');
  // No code (RFC 9457 needs none): a custom shape of the members there are; errors are judged by status and shape.
  if (members.code === undefined) report(ctx, IMPORT_CODES.errorNoCode, { schema: label(chosen), members: listed }, chosen.at);
  else report(ctx, IMPORT_CODES.errorMembers, { schema: label(chosen), members: listed }, chosen.at);
  if (codes.size) report(ctx, IMPORT_CODES.errorCodes, { statuses: statusList }, chosen.at);
  const shapePointer = pointer('errors', 'shape');
  return {
    errors: {
      shape: problem
        ? { kind: 'problem', mediaType: 'application/problem+json', members: PROBLEM_MEMBERS, pointer: shapePointer }
        : { kind: 'custom', mediaType: chosen.mediaType, members: defined({ ...members }), pointer: shapePointer },
      catalog: [],
    },
  };
}

/** A body of one member holding the error (`{error: {code, message}}`): the member, and what it holds, in words. */
function nestedError(scope: SchemaScope, node: Record<string, unknown>, at: string): { member: string; found: string } | undefined {
  const names = isObject(node.properties) ? Object.keys(node.properties) : [];
  if (names.length !== 1) return undefined;
  const member = names[0]!;
  const r = resolve(scope.ctx, (node.properties as Record<string, unknown>)[member], child(at, 'properties', member));
  const inner = r ? mergeAllOf(scope, r.node, r.pointer) : undefined;
  const held = inner && isObject(inner.properties) ? Object.keys(inner.properties) : [];
  const roles = ROLES.flatMap(([role, candidates]) => {
    const found = candidates.find((c) => held.includes(c));
    return found ? [`${role} in '${member}.${found}'`] : [];
  });
  return roles.some((x) => x.startsWith('title ')) ? { member, found: roles.join(', ') } : undefined;
}

function label(body: Body): string {
  return body.name.startsWith('/') ? `the schema at ${body.at}` : body.name;
}
