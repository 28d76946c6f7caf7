/**
 * Domain rules as the format writes them (resources' `unique`, `rules`, `onCreate`,
 * `onDelete`; fields' `managed` and `onDelete`; transitions' and actions' `counts`,
 * `guards`, `effects`) into the model (src/spec/model.ts). Nothing is invented: what the
 * spec leaves out stays absent, and an unreadable entry is skipped (the format's schema
 * reports it).
 */
import type { CountDef, Effect, Expr, Guard, ManagedSource, RecordRule, RefDeletion, UniqueRule, WriteRules } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined, entries, isRecord, str, strs, type Raw } from './read.ts';

type Literal = string | number | boolean;

function literals(value: unknown): Literal[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is Literal => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
}

const expr = (source: string, pointer: string): Expr => ({ source, pointer });

export function normalizeUnique(raw: unknown, pointer: string): UniqueRule[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((u, i): UniqueRule[] => {
    if (!isRecord(u)) return [];
    const fields = strs(u.fields);
    const error = str(u.error);
    if (!fields.length || error === undefined) return [];
    return [{
      name: str(u.name) ?? fields.join('+'),
      fields,
      where: entries(u.where).map(([field, values]) => ({ field, values: literals(values) })),
      ignoreCase: u.ignoreCase === true,
      error,
      pointer: child(pointer, String(i)),
    }];
  });
}

export function normalizeRecordRules(raw: unknown, pointer: string): RecordRule[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((r, i): RecordRule[] => {
    const p = child(pointer, String(i));
    if (!isRecord(r) || typeof r.rule !== 'string' || str(r.error) === undefined) return [];
    return [defined({ expr: expr(r.rule, child(p, 'rule')), error: str(r.error) as string, message: str(r.message), field: str(r.field), pointer: p })];
  });
}

function normalizeGuards(raw: unknown, pointer: string): Guard[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((g, i): Guard[] => {
    const p = child(pointer, String(i));
    if (!isRecord(g) || typeof g.rule !== 'string' || str(g.error) === undefined) return [];
    return [defined({ expr: expr(g.rule, child(p, 'rule')), error: str(g.error) as string, message: str(g.message), each: str(g.each), pointer: p })];
  });
}

function normalizeCounts(raw: unknown, pointer: string): CountDef[] {
  return entries(raw).flatMap(([name, c]): CountDef[] => {
    const p = child(pointer, name);
    if (!isRecord(c) || str(c.resource) === undefined) return [];
    const where = entries(c.where).map(([field, v]) => {
      const at = child(p, 'where', field);
      // A string is an expression; a list, literal values; a scalar, that literal (docs/format.md).
      if (typeof v === 'string') return { field, expr: expr(v, at) };
      const values = (Array.isArray(v) ? v : [v]).filter((x): x is string | number | boolean | null => x === null || ['string', 'number', 'boolean'].includes(typeof x));
      return { field, values };
    });
    return [{ name, resource: str(c.resource) as string, where, pointer: p }];
  });
}

function normalizeEffects(raw: unknown, pointer: string): Effect[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((e, i): Effect[] => {
    const p = child(pointer, String(i));
    if (!isRecord(e)) return [];
    return [defined({
      ref: str(e.ref),
      set: entries(e.set).flatMap(([field, v]) => (typeof v === 'string' ? [{ field, expr: expr(v, child(p, 'set', field)) }] : [])),
      increment: entries(e.increment).flatMap(([field, v]) => (typeof v === 'number' && Number.isFinite(v) ? [{ field, by: v, pointer: child(p, 'increment', field) }] : [])),
      pointer: p,
    })];
  });
}

/** `counts`, `guards`, `effects` of an object (a transition, an action, onCreate/onDelete); undefined when it states none. */
export function normalizeWriteRules(r: Raw, pointer: string): WriteRules | undefined {
  if (r.counts === undefined && r.guards === undefined && r.effects === undefined) return undefined;
  return {
    counts: normalizeCounts(r.counts, child(pointer, 'counts')),
    guards: normalizeGuards(r.guards, child(pointer, 'guards')),
    effects: normalizeEffects(r.effects, child(pointer, 'effects')),
    pointer,
  };
}

export function normalizeManaged(raw: unknown, pointer: string): ManagedSource | undefined {
  if (raw === 'created-at' || raw === 'updated-at' || raw === 'created-by' || raw === 'updated-by') return { kind: raw, pointer };
  if (!isRecord(raw)) return undefined;
  if (typeof raw.sequence === 'string') return { kind: 'sequence', template: raw.sequence, pointer };
  if (typeof raw.expr === 'string') return { kind: 'expr', expr: expr(raw.expr, child(pointer, 'expr')), on: raw.on === 'create' ? 'create' : 'write', pointer };
  return undefined;
}

export function normalizeRefDeletion(raw: unknown, pointer: string): RefDeletion | undefined {
  if (raw === 'cascade' || raw === 'nullify') return { kind: raw, pointer };
  if (isRecord(raw) && str(raw.refuse) !== undefined) return { kind: 'refuse', error: str(raw.refuse) as string, pointer };
  return undefined;
}
