import { defaultPageBody } from '../../spec/conventions/pagination.ts';
import { PAGE_LINKS, VALIDATORS, type ConditionalRequests, type IdempotencyKeys, type Limits, type NoneStatement, type PageBody, type PageLink, type RateLimit, type Validator } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { parseDuration, parseSize } from '../../spec/units.ts';
import { defined, entries, isRecord, num, str, strs } from './read.ts';

export function normalizeLimits(raw: unknown, pointer: string): Limits {
  if (!isRecord(raw)) return {};
  const stated = (v: unknown, key: string): NoneStatement | undefined => (isRecord(v) && typeof v.none === 'string' ? { reason: v.none, pointer: child(pointer, key) } : undefined);
  const noRate = stated(raw.rate, 'rate');
  const noTimeouts = stated(raw.timeouts, 'timeouts');
  const noConditional = stated(raw.conditional, 'conditional');
  const noIdempotency = stated(raw.idempotency, 'idempotency');
  const rate = isRecord(raw.rate) && !noRate ? raw.rate : undefined;
  const body = isRecord(raw.body) ? raw.body : undefined;
  const fields = isRecord(raw.fields) ? raw.fields : undefined;
  const timeouts = isRecord(raw.timeouts) && !noTimeouts ? raw.timeouts : undefined;
  const pg = isRecord(raw.pagination) ? raw.pagination : undefined;
  const scope = rate?.scope === 'address' ? 'address' : 'credential';
  const readRate = (r: Record<string, unknown>, p: string, inherited: RateLimit['scope']): RateLimit => ({
    limit: num(r.limit) ?? 0,
    windowMs: parseDuration(str(r.window) ?? '') ?? 0,
    scope: r.scope === 'address' || r.scope === 'credential' ? r.scope : inherited,
    pointer: p,
  });
  const maxBytes = body ? parseSize(typeof body.maxSize === 'number' ? body.maxSize : str(body.maxSize) ?? '') : undefined;
  const requestMs = timeouts ? parseDuration(str(timeouts.request) ?? '') : undefined;
  const style = pg?.style === 'offset' || pg?.style === 'page' ? pg.style : 'cursor';
  const params = isRecord(pg?.params) ? pg.params : {};
  return defined({
    rate: rate
      ? {
          ...readRate(rate, child(pointer, 'rate'), scope),
          overrides: entries(rate.overrides).map(([endpoint, o]) => ({ endpoint, ...readRate(isRecord(o) ? o : {}, child(pointer, 'rate', 'overrides', endpoint), scope) })),
          ...(rate.headers === 'ratelimit' || rate.headers === 'none' ? { headers: rate.headers } : {}),
        }
      : undefined,
    body: maxBytes !== undefined ? { maxBytes, pointer: child(pointer, 'body') } : undefined,
    fields: fields ? defined({ maxStringLength: num(fields.maxStringLength), maxArrayItems: num(fields.maxArrayItems), pointer: child(pointer, 'fields') }) : undefined,
    timeouts: requestMs !== undefined ? { requestMs, status: timeouts?.status === 503 ? (503 as const) : (504 as const), pointer: child(pointer, 'timeouts') } : undefined,
    none: noRate || noTimeouts || noConditional || noIdempotency ? defined({ rate: noRate, timeouts: noTimeouts, conditional: noConditional, idempotency: noIdempotency }) : undefined,
    conditional: noConditional ? undefined : readConditional(raw.conditional, child(pointer, 'conditional')),
    idempotency: noIdempotency ? undefined : readIdempotency(raw.idempotency, child(pointer, 'idempotency')),
    pagination: pg
      ? {
          style,
          ...(num(pg.defaultSize) !== undefined ? { defaultSize: num(pg.defaultSize) } : {}),
          ...(pg.maxSize === 'none' ? { maxSize: Number.POSITIVE_INFINITY } : num(pg.maxSize) !== undefined ? { maxSize: num(pg.maxSize) } : {}),
          ...(pg.overMax === 'reject' || pg.overMax === 'clamp' ? { overMax: pg.overMax } : {}),
          sizeParam: str(params.size) ?? 'limit',
          positionParam: str(params.position) ?? style,
          sortParam: str(params.sort) ?? 'sort',
          body: pageBody(pg.body, style),
          unpaged: pg.unpaged === 'all' ? ('all' as const) : ('first-page' as const),
          ...(Array.isArray(pg.links) ? { links: strs(pg.links).filter((l): l is PageLink => (PAGE_LINKS as readonly string[]).includes(l)) } : {}),
          pointer: child(pointer, 'pagination'),
        }
      : undefined,
  });
}

function pageBody(raw: unknown, style: 'cursor' | 'offset' | 'page'): PageBody {
  return readPageBody(raw) ?? defaultPageBody(style);
}

/** A page body as written (`limits.pagination.body`, a list's `page`): `array`, or its members. */
export function readPageBody(raw: unknown): PageBody | undefined {
  if (raw === 'array') return { kind: 'array' };
  if (!isRecord(raw)) return undefined;
  return defined({ kind: 'object' as const, items: str(raw.items) ?? 'items', next: str(raw.next), total: str(raw.total), offset: str(raw.offset) });
}

/** `conditional:` as stated; writes and reads are honoured unless the statement says `false`. */
function readConditional(raw: unknown, pointer: string): ConditionalRequests | undefined {
  if (!isRecord(raw)) return undefined;
  const validators = strs(raw.validators).filter((v): v is Validator => (VALIDATORS as readonly string[]).includes(v));
  return { validators: [...new Set(validators)], writes: raw.writes !== false, reads: raw.reads !== false, pointer };
}

function readIdempotency(raw: unknown, pointer: string): IdempotencyKeys | undefined {
  if (!isRecord(raw)) return undefined;
  return { header: str(raw.header) ?? 'Idempotency-Key', lifetimeMs: parseDuration(str(raw.lifetime) ?? '') ?? 0, scope: raw.scope === 'address' ? 'address' : 'credential', pointer };
}
