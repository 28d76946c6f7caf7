/**
 * Managed fields (src/spec/model.ts ManagedSource): the values the service sets itself, as
 * the format defines them. Serve writes them; the tester checks them; check compares a
 * sequence's template with the field's pattern. One module, so all three agree.
 */
import type { Field, ManagedSource } from '../model.ts';
import { fromCel } from './cel.ts';

const TEMPLATE = /\{n(?::([0-9]+))?\}/;

/** `LIB-{n:8}` with 42 is `LIB-00000042`; `{n}` is the number as it is. */
export function formatSequence(template: string, n: number): string {
  return template.replace(TEMPLATE, (_all, width: string | undefined) => (width ? String(n).padStart(Number(width), '0') : String(n)));
}

/** A regular expression that matches exactly what the template gives, for the tester. */
export function sequencePattern(template: string): RegExp {
  const m = TEMPLATE.exec(template);
  if (!m) return new RegExp(`^${escape(template)}$`);
  const digits = m[1] ? `[0-9]{${Number(m[1])},}` : '[1-9][0-9]*';
  return new RegExp(`^${escape(template.slice(0, m.index))}${digits}${escape(template.slice(m.index + m[0].length))}$`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A time as a managed time stamp of this field: a date for `format: date`, else an RFC 3339 date-time in UTC. */
export function timeStamp(field: Field, epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return field.format === 'date' ? iso.slice(0, 10) : iso;
}

/** Whether a source sets the field on this kind of write. */
export function setsOn(source: ManagedSource, write: 'create' | 'change'): boolean {
  switch (source.kind) {
    case 'created-at':
    case 'created-by':
    case 'sequence':
      return write === 'create';
    case 'updated-at':
    case 'updated-by':
      return true;
    case 'expr':
      return source.on === 'write' || write === 'create';
  }
}

/** The fields of a list that the service manages. */
export function managedFields(fields: readonly Field[]): (Field & { readonly managed: ManagedSource })[] {
  return fields.filter((f): f is Field & { managed: ManagedSource } => f.managed !== undefined);
}

/** What a write knows when it sets managed values. */
export interface ManagedInputs {
  /** Epoch milliseconds of the write. */
  readonly now: number;
  /** The principal's id; absent when anonymous (a `*-by` field is then left as it is). */
  readonly principal?: string;
  /** The sequence's next number, by field name (read in the write's transaction). */
  readonly sequence?: (field: string) => number | undefined;
  /** Evaluates a managed CEL expression over the data so far; undefined when it has no value. */
  readonly evaluate: (field: Field & { readonly managed: Extract<ManagedSource, { kind: 'expr' }> }, data: Readonly<Record<string, unknown>>) => unknown;
}

/**
 * Sets, in `data`, the managed fields a write of this kind sets, in field order (a computed
 * field sees the ones before it). serve (src/serve/domain/step.ts) and the tester's
 * prediction (src/conformance/rules-data.ts) both call this, so they agree on every value.
 */
export function applyManaged(fields: readonly Field[], write: 'create' | 'change', data: Record<string, unknown>, inputs: ManagedInputs): void {
  for (const f of managedFields(fields)) {
    if (!setsOn(f.managed, write)) continue;
    const source = f.managed;
    switch (source.kind) {
      case 'created-at':
      case 'updated-at':
        data[f.name] = timeStamp(f, inputs.now);
        break;
      case 'created-by':
      case 'updated-by':
        if (inputs.principal !== undefined) data[f.name] = inputs.principal;
        break;
      case 'sequence': {
        const n = inputs.sequence?.(f.name);
        if (n !== undefined) data[f.name] = formatSequence(source.template, n);
        break;
      }
      case 'expr': {
        const value = inputs.evaluate(f as Field & { managed: typeof source }, data);
        if (value !== undefined) data[f.name] = fromCel(value, f);
        break;
      }
    }
  }
}
