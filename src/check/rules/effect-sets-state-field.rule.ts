/**
 * What an effect may change. A record's state changes only by a transition (its `from`
 * states, its guards, its events), so an effect that writes a state field, of the record
 * itself or of a related one, is an error. An effect on a related record may change any
 * other field; one that clients may also write is noted, since a client's update can then
 * overwrite what effects keep (docs/format.md "Domain rules").
 */
import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { effectTarget, writePlaces } from './domain-support.ts';

const stateField = defineDiagnostic({
  code: 'effect-sets-state-field',
  severity: 'error',
  part: 'resources',
  message: "Effect {n} of {where} {verb} '{resource}.{field}', the state field of '{resource}': a state changes only by a transition.",
  description: "An effect that wrote a state field would move a record between states without a transition: past its `from` states, its guards and its events. Add a transition for the change instead (an effect cannot trigger one: effects do not cascade).",
});

const clientField = defineDiagnostic({
  code: 'effect-changes-client-field',
  severity: 'info',
  part: 'resources',
  message: "Effect {n} of {where} changes '{resource}.{field}' of the record '{ref}' points to, a field clients may also write: an update of that {resource} can overwrite what the effect changed.",
  description: 'Effects on related records usually keep a read-only field (`available`, a counter) that only the service writes. A field clients may also write is allowed (the last write wins, each in its own transaction); make it `readOnly` if clients should not set it.',
});

export default defineRule({
  name: 'effect-sets-state-field',
  diagnostics: [stateField, clientField],
  spec(ctx) {
    for (const w of writePlaces(ctx.spec)) {
      w.rules.effects.forEach((e, i) => {
        const target = effectTarget(ctx.spec, w.resource, e);
        if (!target) return;
        const stateOf = ctx.index.machines.get(target.name)?.field;
        const fields = ctx.index.fields.get(target.name);
        const changes = [
          ...e.set.map((s) => ({ field: s.field, verb: 'sets', pointer: child(e.pointer, 'set', s.field) })),
          ...e.increment.map((inc) => ({ field: inc.field, verb: 'increments', pointer: inc.pointer })),
        ];
        for (const c of changes) {
          const params = { n: i + 1, where: w.label, verb: c.verb, resource: target.name, field: c.field, ref: e.ref };
          if (c.field === stateOf) ctx.report(stateField, params, c.pointer, { key: true, part: w.part });
          else if (e.ref !== undefined && fields?.get(c.field)?.readOnly === false) ctx.report(clientField, params, c.pointer, { key: true, part: w.part });
        }
      });
    }
  },
});
