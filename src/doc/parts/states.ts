import type { Spec } from '../../spec/model.ts';
import { code, codes, facts, heading, maybeText, table, type Block } from '../blocks.ts';
import { writeRulesBlocks } from './domain.ts';

export function statesBlocks(spec: Spec): Block[] {
  return spec.states.flatMap((m) => [
    heading(code(m.resource), ' states'),
    ...facts([
      ['Held in', m.field ? [code(m.field)] : undefined],
      ['States', m.states.length ? codes(m.states) : undefined],
      ['Initial state', m.initial ? [code(m.initial)] : undefined],
    ]),
    ...table(
      ['Transition', 'From', 'To', 'Requires', 'Description'],
      m.transitions.map((t) => [[code(t.name)], codes(t.from), t.to ? [code(t.to)] : [], codes(t.requires), maybeText(t.description)]),
    ),
    ...m.transitions.flatMap((t) => writeRulesBlocks(['Transition ', code(t.name)], t.rules)),
  ]);
}
