/**
 * OpenAPI 3.2 (September 2025) is 3.1 and more: its schemas are the same JSON Schema 2020-12,
 * and what it adds is either annotation or a construct the format has no place for. A 3.2
 * document is read as 3.1 once its 3.2 constructs are taken out, each reported with where it
 * stands and why; the rest is validated as 3.1 (swagger-parser knows 3.0 and 3.1 only) and
 * imported as any 3.1 document.
 *
 *   query, additionalOperations   HTTP QUERY and other methods: the format has GET, POST, PUT, PATCH, DELETE
 *   in: querystring               the whole query string as one parameter: the format's queries are named parameters
 *   itemSchema, itemEncoding      streamed items (JSON Lines, server-sent events): a body is one record, page or shape
 *   $self, tags' summary/parent/kind, servers' name, responses' summary, deprecated schemes,
 *   oauth2MetadataUrl, the device authorization flow: annotations or schemes the format lacks
 */
import { child } from '../../spec/pointer.ts';
import { isObject, type Json } from './context.ts';

export interface Taken {
  /** What was taken out, in words. */
  readonly construct: string;
  /** What the import does instead. */
  readonly done: string;
  readonly pointers: string[];
}

const CONTENT_32 = ['itemSchema', 'itemEncoding'];

/** The document as 3.1 (a copy), and the 3.2 constructs taken out of it. */
export function as31(doc: Json): { doc: Json; taken: Taken[] } {
  const copy = structuredClone(doc) as Json;
  copy.openapi = '3.1.1';
  const taken = new Map<string, Taken>();
  const take = (construct: string, done: string, at: string) => {
    const t = taken.get(construct) ?? taken.set(construct, { construct, done, pointers: [] }).get(construct)!;
    t.pointers.push(at);
  };
  if ('$self' in copy) {
    delete copy.$self;
    take("'$self', the document's own URI", 'not carried (the spec has no address)', '/$self');
  }
  for (const [i, tag] of (Array.isArray(copy.tags) ? copy.tags : []).entries()) {
    if (!isObject(tag)) continue;
    for (const k of ['summary', 'parent', 'kind']) if (k in tag) { delete tag[k]; take(`tags' '${k}'`, 'not carried (an annotation)', child('/tags', i, k)); }
  }
  for (const [i, server] of (Array.isArray(copy.servers) ? copy.servers : []).entries()) {
    if (isObject(server) && 'name' in server) { delete server.name; take("servers' 'name'", 'not carried (the spec has no address)', child('/servers', i, 'name')); }
  }
  const schemes = isObject(copy.components) && isObject(copy.components.securitySchemes) ? copy.components.securitySchemes : {};
  for (const [name, s] of Object.entries(schemes)) {
    if (!isObject(s)) continue;
    const at = child('/components/securitySchemes', name);
    if ('deprecated' in s) { delete s.deprecated; take("a security scheme's 'deprecated'", 'not carried (every scheme of part 5 is accepted)', child(at, 'deprecated')); }
    if ('oauth2MetadataUrl' in s) { delete s.oauth2MetadataUrl; take("'oauth2MetadataUrl' (RFC 8414 discovery)", 'not carried (the format names the token path)', child(at, 'oauth2MetadataUrl')); }
    if (isObject(s.flows) && 'deviceAuthorization' in s.flows) { delete s.flows.deviceAuthorization; take('the OAuth 2.0 device authorization flow', 'left out (the format has client credentials)', child(at, 'flows', 'deviceAuthorization')); }
  }
  for (const [path, item] of Object.entries(isObject(copy.paths) ? copy.paths : {})) {
    if (!isObject(item)) continue;
    const at = child('/paths', path);
    if ('query' in item) { delete item.query; take('QUERY operations', 'left out (the format\'s endpoints use GET, POST, PUT, PATCH or DELETE)', child(at, 'query')); }
    if ('additionalOperations' in item) { delete item.additionalOperations; take("'additionalOperations' (other HTTP methods)", 'left out (the format\'s endpoints use GET, POST, PUT, PATCH or DELETE)', child(at, 'additionalOperations')); }
  }
  walk(copy, '', take);
  return { doc: copy, taken: [...taken.values()] };
}

/** Parameters `in: querystring`, streamed media types and responses' summaries, wherever they stand. */
function walk(node: unknown, at: string, take: (construct: string, done: string, at: string) => void): void {
  if (Array.isArray(node)) {
    const keep = node.filter((v, i) => {
      if (isObject(v) && v.in === 'querystring') {
        take("parameters 'in: querystring'", "left out (the format's queries are named parameters)", child(at, i));
        return false;
      }
      return true;
    });
    if (keep.length !== node.length) node.splice(0, node.length, ...keep);
    node.forEach((v, i) => walk(v, child(at, i), take));
    return;
  }
  if (!isObject(node)) return;
  if (at.endsWith('/content') || /\/content\/[^/]+$/.test(at)) {
    for (const k of CONTENT_32) if (k in node) { delete node[k]; take(`'${k}' (streamed items)`, 'left out (a body is one record, page or shape)', child(at, k)); }
  }
  if (/\/responses\/[^/]+$/.test(at) && typeof node.summary === 'string') { delete node.summary; take("responses' 'summary'", 'not carried (an annotation)', child(at, 'summary')); }
  for (const [k, v] of Object.entries(node)) walk(v, child(at, k), take);
}
