/** Every check rule, one file each. Add a rule: write `<code>.rule.ts`, list it here, add its table test. */
import type { Rule } from '../rule.ts';
import transitionUnknownState from './transition-unknown-state.rule.ts';

export const RULES: readonly Rule[] = [
  transitionUnknownState,
];
