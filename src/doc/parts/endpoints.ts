import { writeRulesBlocks } from './domain.ts';
import { endpointFacts, errorCases } from '../../spec/conventions/situations.ts';
import { ratePolicyFields } from '../../spec/conventions/rate.ts';
import { resolveSituations, type Situation } from '../../spec/http-errors.ts';

/** The situations of every endpoint (src/spec/conventions/situations.ts), said once under the table. */
const EVERY: ReadonlySet<Situation> = new Set(['internal', 'unavailable', 'timeout']);
import type { Endpoint, Field, PathParam, Spec } from '../../spec/model.ts';
import { filterParam } from '../../spec/conventions/query.ts';
import { pageSettings } from '../../spec/conventions/pagination.ts';
import { code, codes, facts, heading, maybeText, paragraph, table, type Block, type Inline } from '../blocks.ts';
import { accessText, BASE_URL, constraints, requestLine, requestText, responsesText, shapeType } from '../describe.ts';

export function endpointsBlocks(spec: Spec): Block[] {
  if (!spec.endpoints.length) return [];
  const policies = ratePolicyFields(spec);
  return [
    paragraph('Paths are relative to the base address, written ', code(BASE_URL), '.'),
    ...table(
      ['Endpoint', 'Method and path', 'Summary', 'Request body', 'Responses', 'Access', 'Errors'],
      // The codes it declares, and those its domain rules refuse it with (uniques, rules, guards, onDelete refuse).
      // The operationId, where the spec gives one: the name generated clients call (export writes it).
      spec.endpoints.map((e) => [e.operationId ? [code(e.id), ' (operation ', code(e.operationId), ')'] : [code(e.id)], [requestLine(e)], maybeText(e.summary), requestText(e, spec), responsesText(e), accessText(e.auth), errorsText(spec, e, policies)]),
    ),
    paragraph('Besides the errors listed, every endpoint may answer ', ...everyText(spec), '.'),
    ...pathBlocks(spec),
    ...spec.endpoints.flatMap(openSurfaceBlocks),
    ...queries(spec),
  ];
}

/** What the parameters of nested paths stand for, and the singletons: only when some endpoint has them. */
function pathBlocks(spec: Spec): Block[] {
  const rows: Inline[][][] = [];
  for (const e of spec.endpoints) {
    if (e.select === 'caller') rows.push([[code(e.id)], ['(none)'], [`the caller's own ${e.resource}, without an id: 401 without credentials, 404 while there is none`]]);
    for (const p of e.params) if (p.binding.kind !== 'id') rows.push([[code(e.id)], [code(`{${p.name}}`)], bindingText(e, p)]);
  }
  if (!rows.length) return [];
  return [
    paragraph('Path parameters beyond the record ', code('{id}'), ', and the endpoints that address the caller\'s own record:'),
    ...table(['Endpoint', 'Parameter', 'Stands for'], rows),
  ];
}

function bindingText(e: Endpoint, p: PathParam): Inline[] {
  const b = p.binding;
  switch (b.kind) {
    case 'parent':
      return [`the id of the ${b.resource} its `, code(b.field), ` names; only that ${b.resource}'s ${e.resource} records are reached here (another's: 404)`];
    case 'value': {
      const c = constraints(b.shape);
      return ['a value: ', ...shapeType(b.shape), ...(b.shape.format ? [' ', code(b.shape.format)] : []), ...(c.length ? ['; ', ...c] : [])];
    }
    case 'unbound':
      return ['nothing the spec binds (check reports it)'];
    default:
      return [`the id of the ${e.resource}`];
  }
}

/** What the table cannot say of actions, bulk writes and expandable refs. */
function openSurfaceBlocks(e: Endpoint): Block[] {
  const out: Block[] = [];
  if (e.action) {
    out.push(heading('Action ', code(e.id)));
    out.push(...facts([
      ['On', [e.action.target === 'record' ? 'one record (its id in the path)' : 'the collection']],
      ['Behaviour', e.action.behaviour ? [e.action.behaviour] : ['not stated']],
      ['Reference service', e.action.rules?.effects.length ? ['performs it: its guards, then its effects, in one transaction'] : ['answers 501 (not implemented) unless a handler for ', code(e.id), ' is supplied']],
      ['Request fields', e.request.kind === 'shape' ? fieldsText(e.request.fields) : undefined],
      ['Response fields', e.action.response.kind === 'shape' ? fieldsText(e.action.response.fields) : [e.action.response.kind === 'resource' ? 'the record' : 'none']],
    ]));
  }
  if (e.action) out.push(...writeRulesBlocks(['Action ', code(e.id)], e.action.rules));
  if (e.bulk) out.push(bulkParagraph(e, e.bulk.max));
  if (e.expand) {
    out.push(paragraph(code(e.id), ': ', code('?expand='), ' embeds the referenced records of ', ...codes(e.expand.fields), `, to depth ${e.expand.depth}; a record the caller may not read stays an id.`));
  }
  return out;
}

/** A bulk write: its body, its bound, all or nothing (src/spec/conventions/bulk.ts). */
function bulkParagraph(e: Endpoint, max: number | undefined): Block {
  const most = `, at most ${max ?? '(not stated)'} items; `;
  if (e.operation === 'bulk-update') {
    return paragraph(code(e.id), ': a bulk update. The body is ', code('{ "items": [{ "id": ..., ...a merge patch }] }'), most, 'all are changed in one transaction or none is; each failing item is named by its pointer (', code('/items/2/title'), '), an id that names no record the caller may see at ', code('/items/2/id'), '. One event per record.');
  }
  if (e.operation === 'bulk-delete') {
    return paragraph(code(e.id), ': a bulk delete. The body is ', code('{ "items": [id, ...] }'), most, 'all are deleted in one transaction or none is; an id that names no record the caller may see is named by its pointer (', code('/items/2'), '). One event per record.');
  }
  return paragraph(code(e.id), ': a bulk create. The body is ', code('{ "items": [...] }'), `${most}all are written in one transaction or none is, and each failing item is named by its pointer (`, code('/items/3/title'), '). One event per record.');
}

function fieldsText(fields: readonly Field[]): Inline[] {
  return fields.flatMap((f, i) => [...(i ? ['; '] : []), code(f.name), ' (', ...shapeType(f), ...(f.required ? [', required'] : []), ...prefixed(constraints(f)), ')']);
}

function prefixed(inline: Inline[]): Inline[] {
  return inline.length ? [', ', ...inline] : [];
}

/** The declared queries of lists: a row per filtered field with its parameters, and the sorts. */
function queries(spec: Spec): Block[] {
  const lists = spec.endpoints.filter((e) => e.operation === 'list');
  if (!lists.length) return [];
  const sort = pageSettings(spec).sortParam;
  const rows: Inline[][][] = [];
  for (const e of lists) {
    const q = e.query;
    if (!q) {
      // The convention (src/spec/conventions/query.ts): equality on each field holding one value, and a sort on it.
      rows.push([[code(e.id)], ['each field holding one value'], [code('<field>=<value>'), '; ', code(`${sort}=<field>`), ' (', code(`-<field>`), ' descending)']]);
      continue;
    }
    for (const f of q.filters) rows.push([[code(e.id)], [code(f.field)], joined(f.ops.map((op) => code(filterParam(f.field, op, q.style))))]);
    if (q.search) rows.push([[code(e.id)], joined(q.search.fields.map((f) => code(f))), [code(q.search.param), ' (full text)']]);
    if (q.sort.length) rows.push([[code(e.id)], ['sort'], joined(q.sort.map((s) => code(s)))]);
    if (q.undeclared !== 'refuse') rows.push([[code(e.id)], ['any other'], [q.undeclared === 'ignore' ? 'ignored' : 'ignored or refused, as the service chooses']]);
  }
  return [
    paragraph(`The filters and sorts each list takes; a list that declares its query refuses any other${lists.some((e) => e.query && e.query.undeclared !== 'refuse') ? ', unless its row "any other" says otherwise' : ''}.`),
    ...table(['List', 'Field', 'Query parameters'], rows),
  ];
}

function joined(items: Inline[]): Inline[] {
  return items.flatMap((item, i) => (i ? [', ', item] : [item]));
}

/**
 * Every error the endpoint can answer with, by status (src/spec/conventions/situations.ts, as
 * the OpenAPI export lists them): the runtime's situations and the codes of its domain rules.
 */
function errorsText(spec: Spec, e: Endpoint, policies: ReadonlyMap<string, unknown>): Inline[] {
  const out: Inline[] = [];
  for (const [status, all] of errorCases(spec, e, endpointFacts(spec, e, policies))) {
    // Those every endpoint may answer are said once, under the table (EVERY).
    const cases = all.filter((c) => c.situation === undefined || !EVERY.has(c.situation));
    if (!cases.length) continue;
    if (out.length) out.push(', ');
    out.push(`${status} `, ...codes(cases.map((c) => c.code), ''));
  }
  return out;
}

/** The errors of EVERY as the spec's catalog answers them (a time-out only where the spec has one). */
function everyText(spec: Spec): Inline[] {
  const resolve = resolveSituations(spec);
  const shown = [...EVERY].filter((x) => x !== 'timeout' || spec.limits.none?.timeouts === undefined);
  return shown.flatMap((x, i): Inline[] => {
    const r = resolve(x);
    return [...(i ? [', '] : []), `${r.status} `, code(r.code)];
  });
}
