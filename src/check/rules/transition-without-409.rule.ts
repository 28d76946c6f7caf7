import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { defineRule } from '../rule.ts';
import { catalogPointer, given } from './support.ts';

const missing = defineDiagnostic({
  code: 'transition-without-409',
  severity: 'warning',
  part: 'errors',
  message: "'{resource}' has transitions, but the errors catalog has no code with status 409 to refuse a transition that the record's current state does not allow.",
  description: 'A transition asked of a record in a state it does not start from conflicts with the current state of the resource: 409 Conflict (RFC 9110, section 15.5.10), with an error code from the catalog. Add one (`invalid-transition: {status: 409, title: Transition not allowed}`).',
});

export default defineRule({
  name: 'transition-without-409',
  diagnostics: [missing],
  spec(ctx) {
    if (!given(ctx, 'errors') || !given(ctx, 'states') || ctx.index.errorStatuses.has(409)) return;
    const machine = ctx.spec.states.find((m) => m.transitions.length > 0);
    if (machine) ctx.report(missing, { resource: machine.resource }, catalogPointer(ctx), { key: true });
  },
});
