/**
 * Endpoints: the short form (`loan: [create, read, approve]`) and the explicit form
 * (`loan: { approve: { path: ... } }`) normalize into the same explicit list, filled by
 * the format's conventions (src/spec/conventions/endpoints.ts).
 */
import { CONVENTIONS, conventionalPath, isStandard } from '../../spec/conventions/endpoints.ts';
import { conventionalBinding, templateParams } from '../../spec/conventions/paths.ts';
import {
  HTTP_METHODS,
  type Endpoint, type EndpointResponse, type HttpMethod, type Operation, type ParamBinding, type PathParam,
  type RequestShape, type Resource, type ResponseBody, type StateMachine,
} from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined, entries, isRecord, str, strs } from './read.ts';
import { normalizeShape } from './resources.ts';

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
      // The key names the endpoint; `operation:` says what it does (the key, when absent).
      const op = str(e.operation) ?? name;
      const operation: Operation = isStandard(op) ? op : 'transition';
      const transition = operation === 'transition' ? op : undefined;
      const convention = CONVENTIONS[operation];
      const method = str(e.method)?.toUpperCase();
      const requires = machine?.transitions.find((t) => t.name === transition)?.requires ?? [];
      const path = str(e.path) ?? conventionalPath(plural, operation, transition);
      out.push(defined({
        id: `${resourceName}.${name}`,
        name,
        resource: resourceName,
        operation,
        transition,
        method: method && (HTTP_METHODS as readonly string[]).includes(method) ? (method as HttpMethod) : convention.method,
        path,
        params: readParams(path, e.params, child(ep, 'params'), resource, ep),
        strayParams: strayParams(path, e.params),
        select: e.select === 'caller' ? 'caller' as const : undefined,
        summary: str(e.summary),
        request: readRequest(e.request) ?? (operation === 'transition' ? { kind: 'fields', fields: requires } : convention.request),
        responses: readResponses(e.responses) ?? convention.responses,
        errors: strs(e.errors),
        explicit: isExplicit,
        pointer: ep,
      }));
    }
  }
  return out;
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

function readRequest(raw: unknown): RequestShape | undefined {
  if (raw === 'none') return { kind: 'none' };
  if (raw === 'resource') return { kind: 'resource', partial: false };
  if (Array.isArray(raw)) return { kind: 'fields', fields: strs(raw) };
  return undefined;
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
