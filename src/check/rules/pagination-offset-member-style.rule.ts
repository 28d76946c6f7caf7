import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { PageBody } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const offsetMember = defineDiagnostic({
  code: 'pagination-offset-member-style',
  severity: 'error',
  part: 'limits',
  message: "{which} names an offset member ('{member}'), but pages are of the {style} style, which has no offset to hold.",
  description: 'A page body\'s `offset` member holds the offset of the page\'s first record, which only the offset style has: a cursor or a page number says where a page starts otherwise. Remove `offset` from the body, or page by `style: offset`.',
});

export default defineRule({
  name: 'pagination-offset-member-style',
  diagnostics: [offsetMember],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    const style = pg?.style ?? 'cursor';
    if (style === 'offset') return;
    const bodies: [PageBody, string, string][] = [
      ...(pg ? [[pg.body, child(pg.pointer, 'body', 'offset'), 'The page body'] as [PageBody, string, string]] : []),
      ...ctx.spec.endpoints.flatMap((e): [PageBody, string, string][] => (e.page ? [[e.page, child(e.pointer, 'page', 'offset'), `The page of '${e.id}'`]] : [])),
    ];
    for (const [body, at, which] of bodies) {
      if (body.kind === 'object' && body.offset !== undefined) ctx.report(offsetMember, { which, member: body.offset, style }, at);
    }
  },
});
