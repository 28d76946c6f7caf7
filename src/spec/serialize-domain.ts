/**
 * Domain rules written back in the format's words (the inverse of src/load/normalize/domain.ts),
 * for src/spec/serialize.ts: the Markdown layout and `import` write specs through it.
 */
import type { CountDef, Effect, ManagedSource, RecordRule, RefDeletion, UniqueRule, WriteRules } from './model.ts';

type Raw = Record<string, unknown>;

function compact(o: Raw): Raw {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export function writeManaged(m: ManagedSource | undefined): unknown {
  if (!m) return undefined;
  if (m.kind === 'sequence') return { sequence: m.template };
  if (m.kind === 'expr') return { expr: m.expr.source, on: m.on };
  return m.kind;
}

export function writeRefDeletion(d: RefDeletion | undefined): unknown {
  if (!d) return undefined;
  return d.kind === 'refuse' ? { refuse: d.error } : d.kind;
}

export function writeUnique(list: readonly UniqueRule[]): unknown {
  if (!list.length) return undefined;
  return list.map((u) => compact({
    fields: [...u.fields],
    where: u.where.length ? Object.fromEntries(u.where.map((w) => [w.field, [...w.values]])) : undefined,
    ignoreCase: u.ignoreCase || undefined,
    error: u.error,
    name: u.name !== u.fields.join('+') ? u.name : undefined,
  }));
}

export function writeRecordRules(list: readonly RecordRule[]): unknown {
  if (!list.length) return undefined;
  return list.map((r) => compact({ rule: r.expr.source, error: r.error, message: r.message, field: r.field }));
}

function writeCount(c: CountDef): Raw {
  return compact({
    resource: c.resource,
    where: c.where.length ? Object.fromEntries(c.where.map((w) => ['expr' in w ? w.expr.source : [...w.values]].map((v) => [w.field, v])[0])) : undefined,
  });
}

function writeEffect(e: Effect): Raw {
  return compact({
    ref: e.ref,
    set: e.set.length ? Object.fromEntries(e.set.map((s) => [s.field, s.expr.source])) : undefined,
    increment: e.increment.length ? Object.fromEntries(e.increment.map((i) => [i.field, i.by])) : undefined,
  });
}

/** `counts`, `guards`, `effects` as members to spread into a transition, an action, onCreate/onDelete. */
export function writeWriteRules(w: WriteRules | undefined): Raw {
  if (!w) return {};
  return {
    counts: Object.fromEntries(w.counts.map((c) => [c.name, writeCount(c)])),
    guards: w.guards.map((g) => compact({ each: g.each, rule: g.expr.source, error: g.error, message: g.message })),
    effects: w.effects.map(writeEffect),
  };
}
