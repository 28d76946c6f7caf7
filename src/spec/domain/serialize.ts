/**
 * The domain rules back to the authoring format (src/spec/serialize.ts writes the rest):
 * what src/load/normalize/domain.ts reads, written so that it reads back the same, and
 * nothing the spec left out.
 */
import type { Field, RecordRule, Resource, UniqueRule, WriteRules } from '../model.ts';
import { managedExtension, onDeleteExtension, ruleExtension, writeRulesExtensions } from './words.ts';

type Raw = Record<string, unknown>;

function writeUnique(u: UniqueRule): Raw {
  return {
    fields: [...u.fields],
    ...(u.where.length ? { where: Object.fromEntries(u.where.map((w) => [w.field, w.values.length === 1 ? w.values[0] : [...w.values]])) } : {}),
    ...(u.ignoreCase ? { ignoreCase: true } : {}),
    error: u.error,
    ...(u.name !== u.fields.join('+') ? { name: u.name } : {}),
  };
}

function writeRule(r: RecordRule): Raw {
  return ruleExtension(r);
}

/** A write's `counts`, `guards`, `effects`, under the format's keys (empty lists left out). */
export function writeWriteRules(rules: WriteRules | undefined): Raw {
  if (!rules) return {};
  const ext = writeRulesExtensions(rules);
  const out: Raw = {};
  if (ext['x-svcspec-counts']) out.counts = ext['x-svcspec-counts'];
  if (ext['x-svcspec-guards']) out.guards = ext['x-svcspec-guards'];
  if (ext['x-svcspec-effects']) out.effects = ext['x-svcspec-effects'];
  // Stated with nothing in it (`guards: []`): keep it stated.
  if (!Object.keys(out).length) out.guards = [];
  return out;
}

/** A resource's `unique`, `rules`, `onCreate`, `onDelete`. */
export function writeResourceDomain(r: Resource): Raw {
  return {
    ...(r.unique.length ? { unique: r.unique.map(writeUnique) } : {}),
    ...(r.rules.length ? { rules: r.rules.map(writeRule) } : {}),
    ...(r.onCreate ? { onCreate: writeWriteRules(r.onCreate) } : {}),
    ...(r.onDelete ? { onDelete: writeWriteRules(r.onDelete) } : {}),
  };
}

/** A field's `managed` and `onDelete`. */
export function writeFieldDomain(f: Field): Raw {
  return {
    ...(f.managed ? { managed: managedExtension(f.managed) } : {}),
    ...(f.onDelete ? { onDelete: onDeleteExtension(f) } : {}),
  };
}
