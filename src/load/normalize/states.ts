import type { Resource, StateMachine } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined, entries, isRecord, str, strs } from './read.ts';
import { normalizeWriteRules } from './domain.ts';

export function normalizeStates(raw: unknown, pointer: string, resources: readonly Resource[]): StateMachine[] {
  return entries(raw).map(([resource, value]) => {
    const m = isRecord(value) ? value : {};
    const p = child(pointer, resource);
    const field = str(m.field) ?? '';
    // Without an explicit list, the states are the enum of the state field: the same spec, not an invented value.
    const fieldEnum = resources.find((r) => r.name === resource)?.fields.find((f) => f.name === field)?.enum;
    const states = Array.isArray(m.states) ? strs(m.states) : (fieldEnum ?? []).map(String);
    return {
      resource,
      field,
      states,
      initial: str(m.initial) ?? '',
      transitions: entries(m.transitions).map(([name, t]) => {
        const tr = isRecord(t) ? t : {};
        return defined({
          name,
          from: strs(tr.from),
          to: str(tr.to) ?? '',
          requires: strs(tr.requires),
          description: str(tr.description),
          rules: normalizeWriteRules(tr, child(p, 'transitions', name)),
          pointer: child(p, 'transitions', name),
        });
      }),
      pointer: p,
    };
  });
}
