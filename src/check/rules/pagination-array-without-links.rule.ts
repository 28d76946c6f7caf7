import { pageSettings } from '../../spec/conventions/pagination.ts';
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { PageBody } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

const unreachable = defineDiagnostic({
  code: 'pagination-array-without-links',
  severity: 'error',
  part: 'limits',
  message: '{which} {how} and carry no links (`links: []`): a client has no way to find the page after the first.',
  description: 'A page without a member for the next position (a bare array, or a body naming no `next`) can only link the next page by `Link: <…>; rel="next"` (RFC 8288). State `links: [next]`, or give the page a body with a `next` member (the part\'s `body`, or the list\'s own `page`).',
});

/** Whether a client can find the page after this one without a Link: only through a `next` member. */
const unlinkable = (body: PageBody) => body.kind === 'array' || body.next === undefined;

const how = (body: PageBody) => (body.kind === 'array' ? 'are bare arrays' : 'name no next position');

export default defineRule({
  name: 'pagination-array-without-links',
  diagnostics: [unreachable],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    if (!pg || pg.links === undefined || pg.links.includes('next')) return;
    const lists = ctx.spec.endpoints.filter((e) => e.operation === 'list');
    // Each list by the body it answers: its own `page`, else the part's (reported once, at the links).
    for (const e of lists.filter((x) => x.page && unlinkable(x.page))) ctx.report(unreachable, { which: `The pages of '${e.id}'`, how: how(e.page!) }, child(e.pointer, 'page'));
    const byPart = lists.filter((x) => !x.page);
    if ((byPart.length || !lists.length) && unlinkable(pageSettings(ctx.spec).body)) ctx.report(unreachable, { which: 'Pages', how: how(pg.body) }, child(pg.pointer, 'links'));
  },
});
