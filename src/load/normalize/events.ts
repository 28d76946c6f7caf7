import type { EventDef, Events, TriggerAction } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { parseDuration } from '../../spec/units.ts';
import { defined, entries, isRecord, num, str, strs } from './read.ts';

const ACTIONS: readonly string[] = ['created', 'updated', 'deleted'];

export function normalizeEvents(raw: unknown, pointer: string): Events {
  if (!isRecord(raw)) return { catalog: [] };
  const w = isRecord(raw.webhooks) ? raw.webhooks : undefined;
  const s = isRecord(raw.stream) ? raw.stream : undefined;
  const r = isRecord(raw.retry) ? raw.retry : undefined;
  return defined({
    webhooks: w
      ? defined({
          subscriptions: w.subscriptions === 'config' ? ('config' as const) : ('api' as const),
          path: str(w.path),
          signing: w.signing === 'none' ? ('none' as const) : ('standard-webhooks' as const),
          cloudEvents: w.cloudEvents === true,
          timeoutMs: parseDuration(str(w.timeout) ?? ''),
          pointer: child(pointer, 'webhooks'),
        })
      : undefined,
    stream: s ? defined({ path: str(s.path) ?? '', heartbeatMs: parseDuration(str(s.heartbeat) ?? ''), pointer: child(pointer, 'stream') }) : undefined,
    retry: r
      ? defined({
          attempts: num(r.attempts) ?? 1,
          backoff: r.backoff === 'fixed' ? ('fixed' as const) : ('exponential' as const),
          initialDelayMs: parseDuration(str(r.initialDelay) ?? '') ?? 0,
          maxDelayMs: parseDuration(str(r.maxDelay) ?? ''),
          pointer: child(pointer, 'retry'),
        })
      : undefined,
    catalog: entries(raw.catalog).map(([name, value]) => normalizeEvent(name, value, child(pointer, 'catalog', name))),
  });
}

function normalizeEvent(name: string, raw: unknown, pointer: string): EventDef {
  const e = isRecord(raw) ? raw : {};
  const on = str(e.on) ?? '';
  const dot = on.indexOf('.');
  const resource = dot < 0 ? on : on.slice(0, dot);
  const what = dot < 0 ? '' : on.slice(dot + 1);
  const action: TriggerAction = ACTIONS.includes(what) ? (what as TriggerAction) : 'transition';
  return defined({
    name,
    description: str(e.description),
    trigger: defined({ on, resource, action, transition: action === 'transition' ? what : undefined, pointer: child(pointer, 'on') }),
    payload: Array.isArray(e.payload) ? { kind: 'fields' as const, fields: strs(e.payload) } : { kind: 'resource' as const },
    since: str(e.since),
    until: str(e.until),
    pointer,
  });
}
