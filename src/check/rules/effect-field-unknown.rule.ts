import { defineDiagnostic, didYouMean } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { effectTarget, writePlaces } from './domain-support.ts';

const refUnknown = defineDiagnostic({
  code: 'effect-ref-unknown',
  severity: 'error',
  part: 'resources',
  message: "Effect {n} of {where} changes the record '{ref}' points to, but '{ref}' is not a ref field of '{resource}'.{hint}",
  description: "An effect's `ref` names a top-level `ref` field of the record written; the effect changes the record it points to. Correct the name, or leave `ref` out to change the record itself.",
});

const fieldUnknown = defineDiagnostic({
  code: 'effect-field-unknown',
  severity: 'error',
  part: 'resources',
  message: "Effect {n} of {where} {verb} '{field}', which is not a field of '{resource}'.{hint}",
  description: "The keys of an effect's `set` and `increment` are top-level fields of the record it changes (the record itself, or the one its `ref` points to). Correct the name.",
});

const notNumber = defineDiagnostic({
  code: 'effect-increment-not-number',
  severity: 'error',
  part: 'resources',
  message: "Effect {n} of {where} increments '{resource}.{field}', a field of type {type}: only integer and number fields are incremented.",
  description: '`increment` adds a number to a field (an absent one counts from 0). Use `set` with an expression for other types.',
});

export default defineRule({
  name: 'effect-field-unknown',
  diagnostics: [refUnknown, fieldUnknown, notNumber],
  spec(ctx) {
    for (const w of writePlaces(ctx.spec)) {
      w.rules.effects.forEach((e, i) => {
        const part = { part: w.part };
        const target = effectTarget(ctx.spec, w.resource, e);
        if (!target) {
          const refs = w.resource.fields.filter((f) => f.type === 'ref').map((f) => f.name);
          ctx.report(refUnknown, { n: i + 1, where: w.label, ref: e.ref, resource: w.resource.name, hint: didYouMean(e.ref ?? '', refs) }, child(e.pointer, 'ref'), part);
          return;
        }
        const fields = ctx.index.fields.get(target.name) ?? new Map();
        for (const s of e.set) {
          if (!fields.has(s.field)) ctx.report(fieldUnknown, { n: i + 1, where: w.label, verb: 'sets', field: s.field, resource: target.name, hint: didYouMean(s.field, fields.keys()) }, child(e.pointer, 'set', s.field), { ...part, key: true });
        }
        for (const inc of e.increment) {
          const f = fields.get(inc.field);
          if (!f) ctx.report(fieldUnknown, { n: i + 1, where: w.label, verb: 'increments', field: inc.field, resource: target.name, hint: didYouMean(inc.field, fields.keys()) }, inc.pointer, { ...part, key: true });
          else if (f.type !== 'integer' && f.type !== 'number') ctx.report(notNumber, { n: i + 1, where: w.label, resource: target.name, field: inc.field, type: f.type }, inc.pointer, { ...part, key: true });
        }
      });
    }
  },
});
