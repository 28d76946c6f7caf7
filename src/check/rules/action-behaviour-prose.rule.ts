import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { performedByReference } from '../../spec/conventions/endpoints.ts';
import { writtenOr } from './support.ts';

const prose = defineDiagnostic({
  code: 'action-behaviour-prose',
  severity: 'info',
  part: 'endpoints',
  message: "The reference cannot perform '{endpoint}': its behaviour is stated in prose. `svcspec serve` answers it with 501 (not-implemented) unless a handler is supplied (--handlers).",
  description: 'An action (`operation: action`) does what its `behaviour` says, in words; the reference service validates, authenticates, rate-limits and versions it like any endpoint, then answers 501 in the declared error shape. A builder supplies the behaviour: `createApp({ handlers })` or `svcspec serve SPEC --handlers ./handlers.js`. `svcspec test` accepts the 501 only for such actions. This is a note for builders, not a defect.',
});

const missing = defineDiagnostic({
  code: 'action-behaviour-missing',
  severity: 'warning',
  part: 'endpoints',
  message: "Action '{endpoint}' does not say what it does: it has no `behaviour`.",
  description: 'An action is not a standard operation nor a state change: unless it states effects (which the reference performs), nothing in the rest of the spec says what it does. Write it in `behaviour:` (what it changes, what it answers, when it refuses), so a builder can implement it and a reader can call it.',
});

export default defineRule({
  name: 'action-behaviour-prose',
  diagnostics: [prose, missing],
  endpoint(endpoint, ctx) {
    if (endpoint.operation !== 'action') return;
    // Effects say what it does (the reference performs them): no behaviour is missing then.
    if (endpoint.action?.behaviour === undefined) {
      if (!performedByReference(endpoint)) ctx.report(missing, { endpoint: endpoint.id }, endpoint.pointer, { key: true });
    }
    // An action stating effects is performed by them: its behaviour describes, the reference does it.
    else if (!performedByReference(endpoint)) ctx.report(prose, { endpoint: endpoint.id }, writtenOr(ctx, child(endpoint.pointer, 'behaviour'), endpoint.pointer));
  },
});
