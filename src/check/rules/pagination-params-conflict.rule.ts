import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';

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

export default defineRule({
  name: 'pagination-params-conflict',
  diagnostics: [conflict, body],
  spec(ctx) {
    const pg = ctx.spec.limits.pagination;
    if (!pg) return;
    const params: [string, string][] = [['size', pg.sizeParam], ['position', pg.positionParam], ['sort parameter', pg.sortParam]];
    for (let i = 0; i < params.length; i++) {
      for (let j = i + 1; j < params.length; j++) {
        if (params[i][1] === params[j][1]) ctx.report(conflict, { first: params[i][0], second: params[j][0], param: params[i][1] }, child(pg.pointer, 'params'));
      }
    }
    if (pg.body.kind !== 'object') return;
    const members = Object.entries(pg.body).filter(([role, name]) => role !== 'kind' && name !== undefined) as [string, string][];
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        if (members[i][1] === members[j][1]) ctx.report(body, { first: members[i][0], second: members[j][0], member: members[i][1] }, child(pg.pointer, 'body'));
      }
    }
  },
});
