/**
 * Part 4: the Location of a create's 201 names the record it made (RFC 9110 §10.2.2, §15.3.2):
 * a path of the spec read with GET, of the record's resource, with the record's id in the id's
 * parameter. The tester reads the record there (src/conformance/parts/resources.ts); the proxy
 * sees only the traffic, so it judges the address: a Location naming no endpoint of the spec,
 * another resource's, or another record. A 201 without a Location is the server's choice
 * (§15.3.2), and a Location on another host is not the spec's to judge.
 */
import { idParam, recordAddress } from '../../spec/conventions/paths.ts';
import type { Endpoint, Resource, Spec } from '../../spec/model.ts';
import type { Router } from '../route.ts';
import type { Found, Seen } from '../seen.ts';
import { isObject } from './values.ts';

export function locationFindings(spec: Spec, router: Router, x: Seen, endpoint: Endpoint, resource: Resource): Found[] {
  const ex = x.exchange;
  const location = ex.response.headers.location;
  if (endpoint.operation !== 'create' || ex.response.status !== 201 || !location) return [];
  // Held only where a read addresses the record, as the tester holds it (src/conformance/parts/
  // resources.ts): a Location at its update or delete path (serve's, without a read) is not a GET.
  if (recordAddress(spec.endpoints, resource.name)?.operation !== 'read') return [];
  const body = ex.response.json;
  const id = isObject(body) ? body[resource.id?.field ?? 'id'] : undefined;
  if (typeof id !== 'string' && typeof id !== 'number') return [];
  let url: URL;
  let origin: string;
  try {
    // The request's URL is absolute where the proxy relayed it; a replay's may be a path.
    const base = new URL(ex.request.url, 'http://proxy.invalid');
    origin = base.origin;
    url = new URL(location, base);
  } catch {
    return [found(endpoint, resource, `${endpoint.id} answered Location '${location}', which is not a URI reference (RFC 3986 §4.1)`)];
  }
  if (url.origin !== origin) return [];
  const route = router.route('GET', `${url.pathname}${url.search}`);
  const at = route.endpoint;
  if (!at) return [found(endpoint, resource, `${endpoint.id} answered Location '${location}', which no GET endpoint of the spec serves; it names the ${resource.name} the create made`)];
  if (at.resource !== resource.name) return [found(endpoint, resource, `${endpoint.id} answered Location '${location}', which is ${at.id}, not a ${resource.name}`)];
  const param = idParam(at);
  const named = param === undefined ? undefined : route.params[param];
  if (named !== undefined && named !== String(id)) return [found(endpoint, resource, `${endpoint.id} answered Location '${location}', which names ${resource.name} '${named}'; the create made '${id}'`)];
  return [];
}

function found(endpoint: Endpoint, resource: Resource, message: string): Found {
  return { part: 'endpoints', id: 'location', endpoint: endpoint.id, message, pointer: endpoint.pointer, text: `${endpoint.id}: a created ${resource.name}'s Location names it (RFC 9110 §10.2.2)` };
}
