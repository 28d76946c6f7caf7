/**
 * The baseline of the serve bench: the item resource of bench/fixtures/items.yaml served by
 * hand with plain Fastify and node:sqlite, as directly as this stack allows. It is the
 * physical limit of Fastify + SQLite *with validation*: the create body is checked by
 * Fastify's own route schema (Ajv, compiled once), as strictly as svcspec checks it (no
 * coercion, unknown members refused, not stripped; every violation listed).
 *
 *   GET  /items/:id            SELECT data by id; the stored JSON text is the response body;
 *                              an ETag from the rowid
 *   GET  /items?after=&limit=  keyset page by rowid, 20 by default, at most 100;
 *                              { "items": [...], "next": "<rowid>" | null }, built as text;
 *                              Link to the next page
 *   POST /items                201, Location, ETag, the record with its new UUID
 *
 * The headers are svcspec's (an ETag on records, a Link to the next page, RFC 9110 §8.8.3,
 * RFC 8288), so both answer the same bytes' worth. Records are never changed here, so the
 * tag is the rowid and version 1, as svcspec's `"<seq>.<version>"` is.
 *
 * One table `items (id TEXT PRIMARY KEY, data TEXT)` (the JSON document, id included), WAL,
 * synchronous=NORMAL or FULL by the durability argument, prepared statements. The table keeps
 * the indexes svcspec keeps for the fixture's list: items.yaml declares no `query`, so by the
 * format's convention the list filters and sorts by every top-level scalar field, and each of
 * those has an index on the expression the list SQL writes (src/store/sqlite-list.ts). This
 * service serves no filter, but one that offers the same list must keep the same indexes, and
 * every create writes them: without them the baseline would measure a smaller service. Inserts are
 * group-committed as svcspec's are (src/store/sqlite-commit.ts): those of one event-loop
 * turn share one transaction, each answered after its COMMIT — an honest baseline is the
 * stack at its best, not one fsync per record.
 *
 * It settles Node's `process.nextTick` before it listens, as svcspec's serve does
 * (src/serve/tick-warm-up.ts, not imported: the baseline is svcspec-free): without it about
 * half of all processes, of either server, build each tick through V8's runtime (~4.5% of a
 * request's CPU), and a baseline left to that lottery would move every ratio by it.
 *
 * `--guarded <credential.json>` puts the guards of bench/fixtures/items-guarded.yaml in front
 * of its routes, by hand, as one route-level onRequest hook, in svcspec's order: API-Version
 * (absent or "2", the default; "1", which svcspec serves deprecated, is refused here: the bench
 * never asks it), then the API key in X-API-Key (the one in the file, found in a Map as svcspec
 * finds a key it verified within the second; svcspec also verifies it again in its store once a
 * second) holding the scope the method needs, then a rate limit per credential (a window of
 * 60 s, a limit never reached); and svcspec's four answer headers: API-Version and Vary
 * (RFC 9110 §12.5.5), RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers).
 * What a guarded service pays on this stack, whoever writes it: the floor the guards' cost
 * is read against (issue #20). Refusals are bare problem objects; the bench sends none but
 * the one anonymous request of its check.
 *
 *   node bench/servers/hand-written.ts <db file> <normal|full> [seed.json] [--guarded <credential.json>]
 *
 * Seeds the records of seed.json (an array of items with their ids) in one transaction,
 * listens on a free loopback port, and prints `{"port":N}` on stdout. SIGTERM closes it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import Fastify, { type FastifyReply, type onRequestHookHandler } from 'fastify';

const argv = process.argv.slice(2);
const guardedAt = argv.indexOf('--guarded');
const credentialFile = guardedAt === -1 ? undefined : argv[guardedAt + 1];
if (guardedAt !== -1) argv.splice(guardedAt, 2);
const [dbFile, durability = 'normal', seedFile] = argv;
if (!dbFile || (durability !== 'normal' && durability !== 'full') || (guardedAt !== -1 && !credentialFile)) {
  console.error('usage: hand-written.ts <db file> <normal|full> [seed.json] [--guarded <credential.json>]');
  process.exit(2);
}

const settle = (_?: unknown): void => {};
for (let i = 0; i < 3000; i++) {
  process.nextTick(settle);
  process.nextTick(settle, i);
}

const db = new DatabaseSync(dbFile);
db.exec('PRAGMA journal_mode = WAL');
db.exec(`PRAGMA synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
db.exec('CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, data TEXT NOT NULL)');
/** The top-level scalar fields of the item (bench/fixtures/items.yaml): what its list filters and sorts by. */
const LISTED_FIELDS = ['name', 'sku', 'price', 'quantity', 'category', 'releasedOn'] as const;
for (const field of LISTED_FIELDS) db.exec(`CREATE INDEX IF NOT EXISTS "items.${field}" ON items (json_extract(data, '$."${field}"'))`);

const insert = db.prepare('INSERT INTO items (id, data) VALUES (?, ?)');
const byId = db.prepare('SELECT rowid, data FROM items WHERE id = ?');
/**
 * A page's statement per page size, its LIMIT written into the SQL as svcspec writes it
 * (src/store/sqlite-list.ts): SQLite re-prepares a statement whose bound LIMIT changes value
 * (~34K instructions a page), and a baseline that paid it would flatter svcspec.
 */
const pages = new Map<number, ReturnType<typeof db.prepare>>();
const page = (size: number) => {
  let statement = pages.get(size);
  if (!statement) pages.set(size, (statement = db.prepare(`SELECT rowid, data FROM items WHERE rowid > ? ORDER BY rowid LIMIT ${size + 1}`)));
  return statement;
};

/** Group commit: the inserts of one turn in one transaction, committed in the check phase. */
const queued: { work: () => number; resolve: (rowid: number) => void; reject: (error: unknown) => void }[] = [];
function commitFlush(): void {
  const batch = queued.splice(0);
  db.exec('BEGIN');
  const outcomes = batch.map((q) => {
    try {
      return { ok: true as const, rowid: q.work() };
    } catch (error) {
      return { ok: false as const, error };
    }
  });
  db.exec('COMMIT');
  batch.forEach((q, i) => {
    const o = outcomes[i]!;
    if (o.ok) q.resolve(o.rowid);
    else q.reject(o.error);
  });
}
function grouped(work: () => number): Promise<number> {
  return new Promise((resolve, reject) => {
    if (queued.length === 0) setImmediate(commitFlush);
    queued.push({ work, resolve, reject });
  });
}

if (seedFile) {
  const records = JSON.parse(readFileSync(seedFile, 'utf8')) as { id: string }[];
  db.exec('BEGIN');
  for (const r of records) insert.run(r.id, JSON.stringify(r));
  db.exec('COMMIT');
}

const createSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'sku', 'price', 'category'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
    price: { type: 'number', minimum: 0, maximum: 1000000, multipleOf: 0.01 },
    quantity: { type: 'integer', minimum: 0, maximum: 100000, default: 0 },
    category: { type: 'string', enum: ['tools', 'garden', 'kitchen', 'toys'] },
    tags: { type: 'array', maxItems: 10, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 30 } },
    releasedOn: { type: 'string', format: 'date' },
  },
} as const;

const app = Fastify({
  logger: false,
  // Strict like svcspec: no coercion, unknown members refused (not removed), every
  // violation listed; 19.99 is a multiple of 0.01. Defaults (quantity) filled as svcspec does.
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, useDefaults: true, multipleOfPrecision: 9 } },
});

/** The route options of every route: the guards' hook where --guarded asks for them. */
const guarded = credentialFile ? { onRequest: guard(credentialFile) } : {};

app.get('/items/:id', guarded, async (request, reply) => {
  const row = byId.get((request.params as { id: string }).id) as { rowid: number; data: string } | undefined;
  if (!row) return reply.code(404).type('application/json').send('{"status":404,"title":"Not found"}');
  return reply.header('etag', `"${row.rowid.toString(36)}.1"`).type('application/json').send(row.data);
});

const notValid = (reply: FastifyReply, detail: string) =>
  reply.code(400).type('application/json').send(JSON.stringify({ status: 400, title: 'Bad request', detail }));

app.get('/items', guarded, async (request, reply) => {
  const q = request.query as { after?: string; limit?: string };
  const after = q.after === undefined ? 0 : Number(q.after);
  const limit = q.limit === undefined ? 20 : Number(q.limit);
  if (!Number.isSafeInteger(after) || after < 0) return notValid(reply, 'after must be a position');
  if (!Number.isSafeInteger(limit) || limit < 1) return notValid(reply, 'limit must be a whole number from 1');
  const size = Math.min(limit, 100);
  const rows = page(size).all(after) as { rowid: number; data: string }[];
  const more = rows.length > size;
  const shown = more ? rows.slice(0, size) : rows;
  const last = more ? String(shown[shown.length - 1]!.rowid) : undefined;
  if (last !== undefined) reply.header('link', `</items?limit=${size}&after=${last}>; rel="next"`);
  return reply.type('application/json').send(`{"items":[${shown.map((r) => r.data).join(',')}],"next":${last === undefined ? 'null' : `"${last}"`}}`);
});

app.post('/items', { ...guarded, schema: { body: createSchema } }, async (request, reply) => {
  const id = randomUUID();
  const json = JSON.stringify({ id, ...(request.body as Record<string, unknown>) });
  const lastInsertRowid = await grouped(() => Number(insert.run(id, json).lastInsertRowid));
  return reply.code(201).header('location', `/items/${id}`).header('etag', `"${lastInsertRowid.toString(36)}.1"`).type('application/json').send(json);
});

app.addHook('onClose', async () => db.close());
await app.listen({ port: 0, host: '127.0.0.1' });
const bound = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof bound === 'object' && bound ? bound.port : 0 })}\n`);

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0), () => process.exit(1));
});

/** The guards of items-guarded.yaml, by hand (see the header): a route-level onRequest hook, as svcspec's guards are on its endpoints only. */
function guard(file: string): onRequestHookHandler {
  const key = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>)['x-api-key'];
  if (!key) throw new Error(`${file} holds no x-api-key`);
  const principals = new Map([[key, { id: 'bench-client', scopes: new Set(['items:read', 'items:write']) }]]);
  const LIMIT = 1_000_000_000;
  const WINDOW_MS = 60_000;
  const POLICY = `"default";q=${LIMIT};w=${WINDOW_MS / 1000}`;
  const windows = new Map<string, { used: number; closesAt: number }>();
  const refuse = (reply: FastifyReply, status: number, title: string) => reply.code(status).type('application/problem+json').send(JSON.stringify({ status, title }));
  // In svcspec's order: the version (its headers on every answer after it), then who calls, then the rate.
  return (request, reply, done) => {
    const asked = request.headers['api-version'] ?? '2';
    if (asked !== '2') return void refuse(reply, 400, 'Unknown API version');
    reply.header('api-version', asked).header('vary', 'API-Version');
    const presented = request.headers['x-api-key'];
    const principal = typeof presented === 'string' ? principals.get(presented) : undefined;
    if (!principal) return void refuse(reply.header('www-authenticate', 'ApiKey realm="Items", header="X-API-Key"'), 401, 'Authentication required');
    if (!principal.scopes.has(request.method === 'GET' ? 'items:read' : 'items:write')) return void refuse(reply, 403, 'Not allowed');
    const now = Date.now();
    let window = windows.get(principal.id);
    if (!window || window.closesAt <= now) windows.set(principal.id, (window = { used: 0, closesAt: now + WINDOW_MS }));
    const t = Math.ceil((window.closesAt - now) / 1000);
    reply.header('ratelimit-policy', POLICY);
    if (window.used >= LIMIT) return void refuse(reply.header('ratelimit', `"default";r=0;t=${t}`).header('retry-after', String(t)), 429, 'Too many requests');
    window.used++;
    reply.header('ratelimit', `"default";r=${LIMIT - window.used};t=${t}`);
    done();
  };
}
