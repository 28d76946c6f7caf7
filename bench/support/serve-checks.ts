/**
 * What the serve bench (bench/serve.bench.ts) serves and checks: the 10,000 seeded items,
 * the create body, and the checks every server passes before it is measured, so that a
 * figure never measures errors: a read answers the record, the pages hold every record
 * once, a create answers 201, and the guarded server does guard.
 */
import { randomUUID } from 'node:crypto';
import type { ServerProcess } from './children.ts';

export const RECORDS = 10_000;
export const PAGE = 20;
/** The version the guarded client names: the default of items-guarded.yaml. */
export const GUARDED_VERSION = '2';

export const CREATE_BODY = { name: 'Garden hose, 20 m', sku: 'GRD-0042', price: 19.99, quantity: 12, category: 'garden', tags: ['outdoor', 'water'], releasedOn: '2024-03-15' };

export type Op = 'read' | 'list' | 'create';
/** hand-guarded: the hand-written server with the guards by hand (its --guarded), the floor of the guards' cost. */
export type Kind = 'hand-written' | 'hand-guarded' | 'svcspec' | 'guarded' | 'json-server';
export type Durability = 'normal' | 'full';

export interface Item {
  readonly id: string;
  readonly name: string;
  readonly sku: string;
  readonly price: number;
  readonly quantity: number;
  readonly category: string;
  readonly tags: readonly string[];
  readonly releasedOn: string;
}

export interface Target {
  readonly kind: Kind;
  readonly durability?: Durability;
  readonly process: ServerProcess;
  /** The name of its CPU profile, when profiled. */
  readonly profile?: string;
  /** The paths of every page, for the list runs; collected by walking them. */
  pages: string[];
  /** Sent with every request: the guarded client's key and version. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The same 10,000 records for every server: deterministic fields, random UUIDs. */
export function seedRecords(): Item[] {
  let state = 0x5eed;
  const random = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const categories = ['tools', 'garden', 'kitchen', 'toys'];
  const words = ['red', 'steel', 'small', 'large', 'eco', 'classic', 'outdoor', 'spare', 'gift', 'pro'];
  const records: Item[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const tags = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)]!))];
    records.push({
      id: randomUUID(),
      name: `Item ${i} ${words[i % words.length]}`,
      sku: `${'ABCDEFGHIJ'[i % 10]}${'KLMNOPQRST'[Math.floor(i / 10) % 10]}X-${String(i % 10000).padStart(4, '0')}`,
      price: Math.round(random() * 100000) / 100,
      quantity: Math.floor(random() * 1000),
      category: categories[i % categories.length]!,
      tags,
      releasedOn: `20${10 + (i % 15)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
    });
  }
  return records;
}

export function label(t: Target): string {
  return t.kind === 'json-server' ? t.kind : `${kindText(t.kind)} (${t.durability})`;
}

export const kindText = (kind: Kind) => (kind === 'guarded' ? 'svcspec guarded' : kind === 'hand-guarded' ? 'hand-written guarded' : kind);

async function getJson(url: string, headers: Readonly<Record<string, string>> = {}): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, headers: response.headers };
}

function invalid(t: Target, what: string, status: number, text: string): Error {
  return new Error(`${label(t)}: ${what} answered ${status}: ${text.slice(0, 300)}`);
}

/** One read of a seeded record must answer it, fields and all. */
export async function checkRead(t: Target, record: Item): Promise<void> {
  const r = await getJson(`${t.process.url}/items/${record.id}`, t.headers);
  const body = r.body as Partial<Item> | undefined;
  if (r.status !== 200 || body?.id !== record.id || body.sku !== record.sku || body.price !== record.price) throw invalid(t, `GET /items/${record.id}`, r.status, r.text);
}

/** Walks every page, checking each holds 20 records and all 10,000 are seen; returns the pages' paths. */
export async function walkPages(t: Target): Promise<string[]> {
  if (t.kind === 'json-server') {
    const pages = Array.from({ length: RECORDS / PAGE }, (_, i) => `/items?_page=${i + 1}&_per_page=${PAGE}`);
    for (const path of [pages[0]!, pages.at(-1)!]) {
      const r = await getJson(t.process.url + path);
      const body = r.body as { data?: unknown[]; items?: number } | undefined;
      if (r.status !== 200 || body?.data?.length !== PAGE || body.items !== RECORDS) throw invalid(t, `GET ${path}`, r.status, r.text);
    }
    return pages;
  }
  const param = t.kind === 'hand-written' || t.kind === 'hand-guarded' ? 'after' : 'cursor';
  const pages: string[] = [];
  const seen = new Set<string>();
  for (let path: string | undefined = '/items'; path !== undefined;) {
    const r = await getJson(t.process.url + path, t.headers);
    const body = r.body as { items?: { id: string }[]; next?: string | null } | undefined;
    if (r.status !== 200 || !Array.isArray(body?.items) || body.items.length !== PAGE) throw invalid(t, `GET ${path}`, r.status, r.text);
    for (const item of body.items) seen.add(item.id);
    pages.push(path);
    path = typeof body.next === 'string' ? `/items?${param}=${encodeURIComponent(body.next)}` : undefined;
    if (pages.length > RECORDS / PAGE) throw new Error(`${label(t)}: more than ${RECORDS / PAGE} pages of ${PAGE}`);
  }
  if (seen.size !== RECORDS) throw new Error(`${label(t)}: walking the pages saw ${seen.size} records, not ${RECORDS}`);
  return pages;
}

/**
 * The guarded server guards: a request without the key is refused (401), and an answer to
 * the client names its version and carries the rate limit's fields.
 */
export async function checkGuarded(t: Target, record: Item): Promise<void> {
  const url = `${t.process.url}/items/${record.id}`;
  const anonymous = await getJson(url, { 'api-version': GUARDED_VERSION });
  if (anonymous.status !== 401) throw invalid(t, `GET /items/${record.id} without a key`, anonymous.status, anonymous.text);
  const r = await getJson(url, t.headers);
  if (r.headers.get('api-version') !== GUARDED_VERSION || !r.headers.get('ratelimit')) {
    throw new Error(`${label(t)}: GET /items/${record.id} answered without API-Version ${GUARDED_VERSION} or RateLimit; headers: ${JSON.stringify(Object.fromEntries(r.headers))}`);
  }
}

export async function checkCreate(t: Target): Promise<void> {
  const response = await fetch(`${t.process.url}/items`, { method: 'POST', headers: { ...t.headers, 'content-type': 'application/json' }, body: JSON.stringify(CREATE_BODY) });
  const text = await response.text();
  let body: Partial<Item> | undefined;
  try {
    body = JSON.parse(text) as Partial<Item>;
  } catch {
    body = undefined;
  }
  if (response.status !== 201 || typeof body?.id !== 'string' || body.sku !== CREATE_BODY.sku) throw invalid(t, 'POST /items', response.status, text);
}

