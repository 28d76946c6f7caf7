import type { Spec } from '../../spec/model.ts';
import { filterParam } from '../../spec/conventions/query.ts';
import { code, codes, maybeText, paragraph, table, type Block, type Inline } from '../blocks.ts';
import { accessText, BASE_URL, requestLine, requestText, responsesText } from '../describe.ts';

export function endpointsBlocks(spec: Spec): Block[] {
  if (!spec.endpoints.length) return [];
  return [
    paragraph('Paths are relative to the base address, written ', code(BASE_URL), '.'),
    ...table(
      ['Endpoint', 'Method and path', 'Summary', 'Request body', 'Responses', 'Access', 'Errors'],
      spec.endpoints.map((e) => [[code(e.id)], [requestLine(e)], maybeText(e.summary), requestText(e.request), responsesText(e), accessText(e.auth), codes(e.errors)]),
    ),
    ...queries(spec),
  ];
}

/** The declared queries of lists: a row per filtered field with its parameters, and the sorts. */
function queries(spec: Spec): Block[] {
  const lists = spec.endpoints.filter((e) => e.query);
  if (!lists.length) return [];
  const rows: Inline[][][] = [];
  for (const e of lists) {
    const q = e.query!;
    for (const f of q.filters) rows.push([[code(e.id)], [code(f.field)], joined(f.ops.map((op) => code(filterParam(f.field, op, q.style))))]);
    if (q.search) rows.push([[code(e.id)], joined(q.search.fields.map((f) => code(f))), [code(q.search.param), ' (full text)']]);
    if (q.sort.length) rows.push([[code(e.id)], ['sort'], joined(q.sort.map((s) => code(s)))]);
  }
  return [
    paragraph('Lists that declare their query accept these filters and sorts and refuse any other; the others filter by equality and sort on every field that holds one value.'),
    ...table(['List', 'Field', 'Query parameters'], rows),
  ];
}

function joined(items: Inline[]): Inline[] {
  return items.flatMap((item, i) => (i ? [', ', item] : [item]));
}
