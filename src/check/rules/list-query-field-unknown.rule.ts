import { operatorMisfit } from '../../spec/conventions/query.ts';
import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { written } from './support.ts';

const unknownField = defineDiagnostic({
  code: 'list-query-field-unknown',
  severity: 'error',
  part: 'endpoints',
  message: "The query of '{endpoint}' {use} '{field}', which {why}.{hint}",
  description: "A list's `query` filters and sorts by top-level fields of its resource that hold one value: not an object or a list, not a writeOnly field, not the id (a record is read by its id). Correct the name, or drop it.",
});

const mismatch = defineDiagnostic({
  code: 'list-query-operator-mismatch',
  severity: 'error',
  part: 'endpoints',
  message: "The query of '{endpoint}' filters '{field}' by '{op}': {why}.",
  description: 'Ranges (`lt`, `lte`, `gt`, `gte`) order numbers, dates and date-times; `prefix` and `contains` match text. Choose the operators that fit the field.',
});

const notAList = defineDiagnostic({
  code: 'list-query-not-a-list',
  severity: 'error',
  part: 'endpoints',
  message: "Endpoint '{endpoint}' declares a query, but it is not a list: only lists take filters and sorts.",
  description: 'A `query` says what a list accepts in its query string; other endpoints take no filters or sorts. Move it to the list endpoint.',
});

export default defineRule({
  name: 'list-query-field-unknown',
  diagnostics: [unknownField, mismatch, notAList],
  endpoint(endpoint, ctx) {
    const pointer = child(endpoint.pointer, 'query');
    if (endpoint.operation !== 'list') {
      if (written(ctx, pointer)) ctx.report(notAList, { endpoint: endpoint.id }, pointer);
      return;
    }
    const q = endpoint.query;
    const resource = ctx.spec.resources.find((r) => r.name === endpoint.resource);
    if (!q || !resource) return;
    const machine = ctx.spec.states.find((m) => m.resource === resource.name);
    const idField = resource.id?.field ?? 'id';
    const names = resource.fields.map((f) => f.name);
    /** Why a field cannot be queried, or undefined. The state field may be queried where the fields do not declare it. */
    const unfit = (name: string): string | undefined => {
      const f = resource.fields.find((x) => x.name === name);
      if (!f) return machine?.field === name ? undefined : `is not a field of '${resource.name}'`;
      if (name === idField) return 'is the id: a record is read by its id';
      if (f.writeOnly) return 'is write-only';
      if (f.type === 'object' || f.type === 'array') return `is an ${f.type}, not a single value`;
      if (f.type === 'any') return 'holds a value of any type, which has no one order or equality';
      return undefined;
    };
    for (const filter of q.filters) {
      const why = unfit(filter.field);
      if (why) {
        // At the key, the field's name, rather than the operators it holds.
        ctx.report(unknownField, { endpoint: endpoint.id, use: 'filters by', field: filter.field, why, hint: why.startsWith('is not') ? didYouMean(filter.field, names) : '' }, filter.pointer, { key: true });
        continue;
      }
      const field = resource.fields.find((x) => x.name === filter.field) ?? { type: 'string' as const };
      filter.ops.forEach((op, i) => {
        const misfit = operatorMisfit(op, field);
        if (misfit) ctx.report(mismatch, { endpoint: endpoint.id, field: filter.field, op, why: misfit }, child(filter.pointer, i));
      });
    }
    q.search?.fields.forEach((name, i) => {
      const type = resource.fields.find((x) => x.name === name)?.type;
      const why = unfit(name) ?? (type !== undefined && type !== 'string' ? `is ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}, not text` : undefined);
      if (why) ctx.report(unknownField, { endpoint: endpoint.id, use: 'searches', field: name, why, hint: why.startsWith('is not') ? didYouMean(name, names) : '' }, child(q.search!.pointer, 'fields', i));
    });
    q.sort.forEach((name, i) => {
      const why = unfit(name);
      if (why) ctx.report(unknownField, { endpoint: endpoint.id, use: 'sorts by', field: name, why, hint: why.startsWith('is not') ? didYouMean(name, names) : '' }, child(q.pointer, 'sort', i));
    });
  },
});
