/**
 * The domain rules in the document (#14): a resource's uniqueness, rules, managed fields and
 * delete behaviours, and the guards and effects of its creates, deletes, transitions and
 * actions, in the words export uses too (src/spec/domain/words.ts).
 */
import { managedWords, refDeletionWords, ruleWords, uniqueWords, writeRulesWords } from '../../spec/domain/words.ts';
import type { Resource, Spec, WriteRules } from '../../spec/model.ts';
import { code, list, paragraph, type Block, type Inline, type Text } from '../blocks.ts';

/** Words with `code` in backticks, as inline parts. */
export function wordsText(words: string): Inline[] {
  return words.split('`').map((part, i) => (i % 2 === 1 ? code(part) : part)).filter((p) => p !== '');
}

/** "Domain rules of a loan:" and a list, or nothing when the resource states none. */
export function resourceDomainBlocks(spec: Spec, r: Resource): Block[] {
  const items: Text[] = [
    ...r.unique.map((u) => wordsText(uniqueWords(r, u))),
    ...r.rules.map((rule) => wordsText(ruleWords(rule))),
    ...r.fields.flatMap((f): Text[] => (f.managed ? [[code(f.name), ': ', ...wordsText(managedWords(f.managed))]] : [])),
    ...r.fields.flatMap((f): Text[] => {
      if (f.type !== 'ref') return [];
      const words = refDeletionWords(spec, r, f);
      return words ? [[code(f.name), ': ', ...wordsText(words)]] : [];
    }),
    ...writeItems('On create', r.onCreate),
    ...writeItems('On update', r.onUpdate),
    ...writeItems('On delete', r.onDelete),
  ];
  return items.length ? [paragraph('Domain rules of a ', code(r.name), ':'), list(items)] : [];
}

function writeItems(label: string, rules: WriteRules | undefined): Text[] {
  return rules ? [[`${label}: `, ...wordsText(writeRulesWords(rules).join(' '))]] : [];
}

/** The guards and effects of a transition or an action, as a paragraph. */
export function writeRulesBlocks(label: Inline[], rules: WriteRules | undefined): Block[] {
  if (!rules) return [];
  return [paragraph(...label, ': ', ...wordsText(writeRulesWords(rules).join(' ')))];
}
