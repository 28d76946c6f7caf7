/**
 * Part 6, what an event carries, the same on every channel (docs/events.md "The event"):
 * which arrival is about a triggered change (its type, and the record's id in its data or
 * CloudEvents subject), whether its `data` is exactly the declared payload, and the forms
 * of the event id and timestamp.
 */
import type { EventDef } from '../../spec/model.ts';
import type { TestContext } from '../context.ts';
import { isObject, jsonEqual } from '../expect.ts';
import type { Triggered } from './events-trigger.ts';

/** `evt_<n>`: the event's position in the service's event log. */
export const EVENT_ID = /^evt_(\d+)$/;

/** RFC 3339 in UTC with milliseconds, as the convention writes every event time. */
export const EVENT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What an arrival says it is about, whatever its channel. */
export interface Arrived {
  readonly type: unknown;
  readonly data: unknown;
  /** CloudEvents `subject`: the record's id. */
  readonly subject?: unknown;
}

/**
 * Whether an arrival is about a triggered change: its type, and the record's id when the
 * payload carries the id field (else the CloudEvents subject, else a payload equal to the
 * expected one). `loose` only asks for the type: what arrived instead, for a report.
 */
export function isAbout(t: Triggered, idField: string, a: Arrived | undefined, loose = false): boolean {
  if (!a || a.type !== t.event.name) return false;
  if (loose) return true;
  if (isObject(a.data) && idField in a.data) return String(a.data[idField]) === t.id;
  if (a.subject !== undefined) return String(a.subject) === t.id;
  return jsonEqual(a.data, t.payload);
}

/**
 * Why `data` is not the payload the event declares, or undefined when it is. In another
 * version than the working one (whose payload `t.payload` is), the data carries that
 * version's fields: those both versions show must equal the working version's, and a field
 * only that version shows has a value the working version cannot tell.
 */
export function payloadProblem(ctx: TestContext, t: Triggered, data: unknown, version = ctx.version): string | undefined {
  if (!isObject(data)) return `'data' is ${JSON.stringify(data)}, not an object`;
  const other = version !== ctx.version;
  const visible = new Set(ctx.fieldsOf(t.resource, version).map((f) => f.name));
  const declared = t.event.payload.kind === 'fields' ? t.event.payload.fields : undefined;
  for (const key of Object.keys(data)) {
    const field = t.resource.fields.find((f) => f.name === key);
    if (field?.writeOnly) return `'data' leaks the writeOnly field '${key}'`;
    if (key in t.payload && (!other || !field || visible.has(key))) continue;
    if (declared && !declared.includes(key)) return `'data' carries '${key}', which the event's payload [${declared.join(', ')}] does not list`;
    if (field && !visible.has(key)) return `'data' carries '${key}', a field outside version ${version}`;
    if (other && field) continue;
    return `'data' carries '${key}', which a read of the ${t.resource.name} does not show`;
  }
  for (const [key, value] of Object.entries(t.payload)) {
    if (other && !visible.has(key)) continue;
    if (!(key in data)) return other ? `'data' lacks '${key}', a field of version ${version} (${JSON.stringify(value)} in version ${ctx.version})` : `'data' lacks '${key}' (${JSON.stringify(value)} in the record)`;
    if (!jsonEqual(data[key], value)) return other ? `'data.${key}' is ${JSON.stringify(data[key])}; in version ${ctx.version} the same event carries ${JSON.stringify(value)}` : `'data.${key}' is ${JSON.stringify(data[key])}; the record ${t.event.trigger.action === 'deleted' ? 'had' : 'has'} ${JSON.stringify(value)}`;
  }
  return undefined;
}

/** The rule an event's checks hold to: its catalog entry. */
export function eventRule(event: EventDef): { pointer: string; text: string } {
  const payload = event.payload.kind === 'resource' ? 'resource' : `[${event.payload.fields.join(', ')}]`;
  const versions = event.since || event.until ? `, versions ${event.since ?? '…'} to ${event.until ?? '…'}` : '';
  return { pointer: event.pointer, text: `${event.name}: on ${event.trigger.on}, payload ${payload}${versions}` };
}

/** The types (and record ids) of what arrived, for a report of what did not. */
export function summary(arrived: readonly (Arrived | undefined)[], idField: string): string {
  if (!arrived.length) return 'nothing arrived';
  const shown = arrived.slice(-8).map((a) => (a ? `${String(a.type)}${isObject(a.data) && idField in a.data ? ` '${String(a.data[idField])}'` : ''}` : '(unreadable)'));
  return `${arrived.length} arrived${arrived.length > 8 ? ', the last 8' : ''}: ${shown.join(', ')}`;
}
