/**
 * The baseline of the postgres bench: the item resource of bench/fixtures/items.yaml served
 * by hand with plain Fastify and the `postgres` client, as directly as this stack allows,
 * doing the work svcspec's PostgreSQL store does for it: the create body checked by
 * Fastify's route schema (as strictly as svcspec checks it), records as jsonb rows keyed by
 * id with an insertion sequence, prepared statements on a pool of 10 connections, one
 * statement (one transaction, committed with synchronous_commit on) per create.
 *
 *   GET  /items/:id            SELECT data::text by id: the response body; an ETag from the seq
 *   GET  /items?after=&limit=  keyset page by seq, 20 by default; { "items": [...], "next": … }
 *   POST /items                201, Location, ETag, the record with its new UUID
 *
 *   node bench/servers/hand-written-postgres.ts <postgres url?schema=…> [seed.json]
 *
 * Creates its schema and table, seeds the records of seed.json, listens on a free loopback
 * port, and prints `{"port":N}` on stdout. SIGTERM closes it.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify, { type FastifyReply } from 'fastify';
import postgres from 'postgres';

const [urlText, seedFile] = process.argv.slice(2);
if (!urlText) {
  console.error('usage: hand-written-postgres.ts <postgres url?schema=name> [seed.json]');
  process.exit(2);
}
const url = new URL(urlText);
const schema = url.searchParams.get('schema') ?? 'public';
url.searchParams.delete('schema');
const sql = postgres(url.toString(), { max: 10, onnotice: () => {}, connection: { search_path: schema } });
await sql.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
await sql.unsafe('CREATE TABLE IF NOT EXISTS items (seq bigserial PRIMARY KEY, id text UNIQUE NOT NULL, data jsonb NOT NULL)');

if (seedFile) {
  const records = JSON.parse(readFileSync(seedFile, 'utf8')) as { id: string }[];
  for (let i = 0; i < records.length; i += 1000) {
    const chunk = records.slice(i, i + 1000);
    await sql.unsafe('INSERT INTO items (id, data) SELECT id, d::jsonb FROM unnest($1::text[], $2::text[]) AS x(id, d)', [chunk.map((r) => r.id), chunk.map((r) => JSON.stringify(r))] as never[]);
  }
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
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, useDefaults: true, multipleOfPrecision: 9 } },
});

const q = (text: string, params: unknown[]) => sql.unsafe(text, params as never[], { prepare: true }).values().execute() as unknown as Promise<[string, string][]>;

app.get('/items/:id', async (request, reply) => {
  const [row] = await q('SELECT seq, data::text FROM items WHERE id = $1', [(request.params as { id: string }).id]);
  if (!row) return reply.code(404).type('application/json').send('{"status":404,"title":"Not found"}');
  return reply.header('etag', `"${Number(row[0]).toString(36)}.1"`).type('application/json').send(row[1]);
});

const notValid = (reply: FastifyReply, detail: string) => reply.code(400).type('application/json').send(JSON.stringify({ status: 400, title: 'Bad request', detail }));

app.get('/items', async (request, reply) => {
  const query = request.query as { after?: string; limit?: string };
  const after = query.after === undefined ? 0 : Number(query.after);
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isSafeInteger(after) || after < 0) return notValid(reply, 'after must be a position');
  if (!Number.isSafeInteger(limit) || limit < 1) return notValid(reply, 'limit must be a whole number from 1');
  const size = Math.min(limit, 100);
  const rows = await q('SELECT seq, data::text FROM items WHERE seq > $1 ORDER BY seq LIMIT $2', [after, size + 1]);
  const more = rows.length > size;
  const shown = more ? rows.slice(0, size) : rows;
  const last = more ? String(shown[shown.length - 1]![0]) : undefined;
  if (last !== undefined) reply.header('link', `</items?limit=${size}&after=${last}>; rel="next"`);
  return reply.type('application/json').send(`{"items":[${shown.map((r) => r[1]).join(',')}],"next":${last === undefined ? 'null' : `"${last}"`}}`);
});

app.post('/items', { schema: { body: createSchema } }, async (request, reply) => {
  const id = randomUUID();
  const json = JSON.stringify({ id, ...(request.body as Record<string, unknown>) });
  const [row] = await q('INSERT INTO items (id, data) VALUES ($1, $2::text::jsonb) RETURNING seq, data::text', [id, json]);
  return reply.code(201).header('location', `/items/${id}`).header('etag', `"${Number(row![0]).toString(36)}.1"`).type('application/json').send(row![1]);
});

app.addHook('onClose', async () => sql.end({ timeout: 5 }));
await app.listen({ port: 0, host: '127.0.0.1' });
const bound = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof bound === 'object' && bound ? bound.port : 0 })}\n`);

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0), () => process.exit(1));
});
