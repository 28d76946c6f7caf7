import type { Spec } from '../../spec/model.ts';
import { code, codes, maybeText, paragraph, table, type Block } from '../blocks.ts';
import { accessText, BASE_URL, requestLine, requestText, responsesText } from '../describe.ts';

export function endpointsBlocks(spec: Spec): Block[] {
  if (!spec.endpoints.length) return [];
  return [
    paragraph('Paths are relative to the base address, written ', code(BASE_URL), '.'),
    ...table(
      ['Endpoint', 'Method and path', 'Summary', 'Request body', 'Responses', 'Access', 'Errors'],
      spec.endpoints.map((e) => [[code(e.id)], [requestLine(e)], maybeText(e.summary), requestText(e.request), responsesText(e), accessText(e.auth), codes(e.errors)]),
    ),
  ];
}
