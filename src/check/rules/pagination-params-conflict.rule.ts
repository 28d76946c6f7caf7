import { bodyMembers, memberPath } from '../../spec/conventions/pagination.ts';
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { PageBody } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';

const conflict = defineDiagnostic({
  code: 'pagination-params-conflict',
  severity: 'error',
  part: 'limits',
  message: "The page {first} and the {second} are both read from the query parameter '{param}'.",
  description: 'The size, the position (cursor, offset or page number) and the sort of a list are separate query parameters; they need separate names. Rename one in `pagination.params`.',
});

const body = defineDiagnostic({
  code: 'pagination-body-members-conflict',
  severity: 'error',
  part: 'limits',
  message: "The page body puts its {first} and its {second} in the same member '{member}'.",
  description: 'Each piece of a page body (`items`, `next`, `total`, `offset`) needs its own member name.',
});

const inside = defineDiagnostic({
  code: 'pagination-body-member-inside',
  severity: 'error',
  part: 'limits',
  message: "The page body puts its {inner} ('{innerMember}') inside its {outer} ('{outerMember}'), which holds a value of its own.",
  description: 'A member named by a JSON Pointer (`/meta/next_page`) sits inside the objects its path names; none of those can be another piece of the page (the records, the next position, the total, the offset). Name the pieces apart.',
});

export default defineRule({
  name: 'pagination-params-conflict',
  diagnostics: [conflict, body, inside],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    const pages: [PageBody, string][] = ctx.spec.endpoints.flatMap((e): [PageBody, string][] => (e.page ? [[e.page, child(e.pointer, 'page')]] : []));
    if (!pg) return void bodiesApart(ctx, pages);
    const params: [string, string][] = [['size', pg.sizeParam], ['position', pg.positionParam], ['sort parameter', pg.sortParam]];
    for (let i = 0; i < params.length; i++) {
      for (let j = i + 1; j < params.length; j++) {
        if (params[i][1] === params[j][1]) ctx.report(conflict, { first: params[i][0], second: params[j][0], param: params[i][1] }, child(pg.pointer, 'params'));
      }
    }
    bodiesApart(ctx, [[pg.body, child(pg.pointer, 'body')], ...pages]);
  },
});

/** Each piece of each page body in a member of its own, none inside another. */
function bodiesApart(ctx: RuleContext, bodies: readonly [PageBody, string][]): void {
  for (const [b, at] of bodies) {
    const members = bodyMembers(b);
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const [a, c] = [memberPath(members[i][1]), memberPath(members[j][1])];
        if (a.join('\0') === c.join('\0')) ctx.report(body, { first: members[i][0], second: members[j][0], member: members[i][1] }, at);
        else if (prefixOf(a, c) || prefixOf(c, a)) {
          const [outer, inner] = prefixOf(a, c) ? [members[i], members[j]] : [members[j], members[i]];
          ctx.report(inside, { inner: inner[0], innerMember: inner[1], outer: outer[0], outerMember: outer[1] }, at);
        }
      }
    }
  }
}

/** Whether the path `a` leads to an object holding `b` (a shorter path, equal on the way). */
function prefixOf(a: readonly string[], b: readonly string[]): boolean {
  return a.length < b.length && a.every((t, i) => t === b[i]);
}
