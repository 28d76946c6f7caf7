/**
 * The floor of the start-up bench: Fastify and node:sqlite, one route reading a table, until
 * its first 200 — what any service on this stack pays before it answers.
 *
 *   node bench/support/startup-floor.ts <db file>
 */
import { DatabaseSync } from 'node:sqlite';
import Fastify from 'fastify';

const db = new DatabaseSync(process.argv[2] ?? ':memory:');
db.exec('PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS items (seq INTEGER PRIMARY KEY, data TEXT NOT NULL)');
const page = db.prepare('SELECT seq, data FROM items ORDER BY seq LIMIT 20');
const app = Fastify();
app.get('/items', async () => ({ items: page.all() }));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const status = await fetch(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/items`).then((r) => r.status);
process.exit(status === 200 ? 0 : 1);
