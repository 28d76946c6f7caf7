/**
 * Endpoints: the short form (`loan: [create, read, approve]`) and the explicit form
 * (`loan: { approve: { path: ... } }`) normalize into the same explicit list, filled by
 * the format's conventions (src/spec/conventions/endpoints.ts).
 */
import { normalizeWriteRules } from './domain.ts';
import { CONVENTIONS, conventionalPath } from '../../spec/conventions/endpoints.ts';
import { conventionalBinding, templateParams } from '../../spec/conventions/paths.ts';
import {
  FILTER_OPERATORS, HTTP_METHODS, NAMED_OPERATIONS, isBulk, type FilterOperator, type ListQueryDecl, type QueryStyle,
  type ActionDef, type Endpoint, type EndpointResponse, type ExpandDef, type HttpMethod, type Operation, type ParamBinding, type PathParam,
  type RequestShape, type Resource, type ResponseBody, type StateMachine,
} from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined, entries, isRecord, num, str, strs, type Raw } from './read.ts';
import { normalizeFields, normalizeShape } from './resources.ts';
import { readPageBody } from './limits.ts';

export function normalizeEndpoints(raw: unknown, pointer: string, resources: readonly Resource[], states: readonly StateMachine[]): Endpoint[] {
  const out: Endpoint[] = [];
  for (const [resourceName, value] of entries(raw)) {
    const resource = resources.find((r) => r.name === resourceName);
    const plural = resource?.plural ?? resourceName;
    const machine = states.find((m) => m.resource === resourceName);
    const p = child(pointer, resourceName);
    const items: [string, unknown, string, boolean][] = Array.isArray(value)
      ? value.map((op, i) => [String(op), undefined, child(p, i), false])
      : entries(value).map(([op, e]) => [op, e, child(p, op), true]);
    for (const [name, explicit, ep, isExplicit] of items) {
      const e = isRecord(explicit) ? explicit : {};
      // The key is the endpoint's name; `operation:` says what it does, the key itself when absent.
      const said = str(e.operation) ?? name;
      const operation: Operation = (NAMED_OPERATIONS as readonly string[]).includes(said) ? (said as Operation) : 'transition';
      const transition = operation === 'transition' ? said : undefined;
      const convention = CONVENTIONS[operation];
      const method = str(e.method)?.toUpperCase();
      const requires = machine?.transitions.find((t) => t.name === transition)?.requires ?? [];
      const path = str(e.path) ?? conventionalPath(plural, operation, transition ?? name);
      const params = readParams(path, e.params, child(ep, 'params'), resource, ep);
      const action = operation === 'action' ? readAction(e, params, child(ep, 'response')) : undefined;
      out.push(defined({
        id: `${resourceName}.${name}`,
        name,
        resource: resourceName,
        operation,
        transition,
        method: method && (HTTP_METHODS as readonly string[]).includes(method) ? (method as HttpMethod) : convention.method,
        path,
        params,
        strayParams: strayParams(path, e.params),
        select: e.select === 'caller' ? 'caller' as const : undefined,
        summary: str(e.summary),
        operationId: str(e.operationId),
        request: readRequest(e.request, child(ep, 'request')) ?? (operation === 'transition' ? { kind: 'fields', fields: requires } : convention.request),
        responses: action ? actionResponses(action, readResponses(e.responses)) : readResponses(e.responses) ?? convention.responses,
        errors: strs(e.errors),
        query: operation === 'list' ? readQuery(e.query, child(ep, 'query')) : undefined,
        explicit: isExplicit,
        action,
        bulk: isBulk(operation) ? defined({ max: num(e.max) }) : undefined,
        expand: readExpand(e, ep),
        page: e.page === undefined ? undefined : readPageBody(e.page),
        pointer: ep,
      }));
    }
  }
  return out;
}

function readQuery(raw: unknown, pointer: string): ListQueryDecl | undefined {
  if (!isRecord(raw)) return undefined;
  const filters = entries(raw.filters).map(([field, ops]) => ({
    field,
    ops: strs(ops).filter((op): op is FilterOperator => (FILTER_OPERATORS as readonly string[]).includes(op)),
    pointer: child(pointer, 'filters', field),
  }));
  const style: QueryStyle = raw.style === 'colon' || raw.style === 'suffix' ? raw.style : 'brackets';
  const search = isRecord(raw.search) ? { param: str(raw.search.param) ?? 'q', fields: strs(raw.search.fields), pointer: child(pointer, 'search') } : undefined;
  const undeclared: ListQueryDecl['undeclared'] = raw.undeclared === 'ignore' || raw.undeclared === 'either' ? raw.undeclared : 'refuse';
  return defined({ filters, sort: strs(raw.sort), style, search, undeclared, pointer });
}


/** Each parameter of the template, bound as `params:` declares or by the convention. */
function readParams(path: string, raw: unknown, pointer: string, resource: Resource | undefined, endpointPointer: string): PathParam[] {
  const declared = isRecord(raw) ? raw : {};
  return templateParams(path).map((name) => {
    if (!(name in declared)) return { name, binding: conventionalBinding(name, resource), declared: false, pointer: child(endpointPointer, 'path') };
    const p = child(pointer, name);
    return { name, binding: readBinding(declared[name], p, resource), declared: true, pointer: p };
  });
}

function strayParams(path: string, raw: unknown): string[] | undefined {
  if (!isRecord(raw)) return undefined;
  const inPath = new Set(templateParams(path));
  const stray = Object.keys(raw).filter((name) => !inPath.has(name));
  return stray.length ? stray : undefined;
}

function readBinding(raw: unknown, pointer: string, resource: Resource | undefined): ParamBinding {
  if (raw === 'id') return { kind: 'id' };
  if (!isRecord(raw)) return { kind: 'unbound' };
  const ref = str(raw.ref);
  if (ref !== undefined) {
    const field = resource?.fields.find((f) => f.name === ref);
    return field?.type === 'ref' && field.resource ? { kind: 'parent', field: ref, resource: field.resource } : { kind: 'unbound', ref };
  }
  return { kind: 'value', shape: normalizeShape(raw, pointer) };
}

function readRequest(raw: unknown, pointer: string): RequestShape | undefined {
  if (raw === 'none') return { kind: 'none' };
  if (raw === 'resource') return { kind: 'resource', partial: false };
  if (Array.isArray(raw)) return { kind: 'fields', fields: strs(raw) };
  if (isRecord(raw) && isRecord(raw.fields)) return { kind: 'shape', fields: normalizeFields(raw.fields, child(pointer, 'fields')) };
  return undefined;
}

/**
 * An action: on a record when a parameter of its path is the record's own id (`{id}`, or
 * declared `id`), else on the collection, a nested one too (`/patients/{patientId}/appointments/preview`).
 */
function readAction(e: Raw, params: readonly PathParam[], responsePointer: string): ActionDef {
  const r = e.response;
  const response: ActionDef['response'] = r === 'none' ? { kind: 'none' }
    : isRecord(r) && isRecord(r.fields) ? { kind: 'shape', fields: normalizeFields(r.fields, child(responsePointer, 'fields')) }
    : { kind: 'resource' };
  const pointer = responsePointer.slice(0, responsePointer.lastIndexOf('/'));
  return defined({ target: params.some((p) => p.binding.kind === 'id') ? 'record' : 'collection', response, behaviour: str(e.behaviour), rules: normalizeWriteRules(e, pointer) });
}

/**
 * An action's responses: its success body is what `response:` says (a declared 2xx keeps
 * its status); without a declared 2xx, 204 for none (RFC 9110 §15.3.5), 200 otherwise.
 */
function actionResponses(action: ActionDef, declared: EndpointResponse[] | undefined): EndpointResponse[] {
  const body: ResponseBody = action.response.kind === 'none' ? 'none' : action.response.kind === 'shape' ? 'shape' : 'resource';
  if (declared?.some((r) => r.status < 300)) return declared.map((r) => (r.status < 300 ? { ...r, body } : r));
  return [{ status: body === 'none' ? 204 : 200, body }, ...(declared ?? [])];
}

function readExpand(e: Raw, pointer: string): ExpandDef | undefined {
  const fields = strs(e.expand);
  if (!Array.isArray(e.expand) || fields.length === 0) return undefined;
  return { fields, depth: num(e.expandDepth) ?? 1, pointer: child(pointer, 'expand') };
}

const BODIES: readonly ResponseBody[] = ['resource', 'page', 'none', 'error'];

function readResponses(raw: unknown): EndpointResponse[] | undefined {
  if (!isRecord(raw)) return undefined;
  const out: EndpointResponse[] = [];
  for (const [status, value] of Object.entries(raw)) {
    const body = str(isRecord(value) ? value.body : value);
    if (!body || !(BODIES as readonly string[]).includes(body) || !/^[1-5][0-9][0-9]$/.test(status)) continue;
    out.push(defined({ status: Number(status), body: body as ResponseBody, description: isRecord(value) ? str(value.description) : undefined }));
  }
  return out.length ? out : undefined;
}
