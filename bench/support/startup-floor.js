/**
 * The floor of the start-up bench: Fastify and node:sqlite, one route reading a table — what
 * any service on this stack pays before it answers. Plain JavaScript, as an installed package
 * runs (no type stripping); it listens until killed, and the bench polls it as it polls svcspec.
 *
 *   node bench/support/startup-floor.js <db file> <port>
 */
import { DatabaseSync } from 'node:sqlite';
import Fastify from 'fastify';

const db = new DatabaseSync(process.argv[2] ?? ':memory:');
db.exec('PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS items (seq INTEGER PRIMARY KEY, data TEXT NOT NULL)');
const page = db.prepare('SELECT seq, data FROM items ORDER BY seq LIMIT 20');
const app = Fastify();
app.get('/items', async () => ({ items: page.all() }));
await app.listen({ port: Number(process.argv[3] ?? 0), host: '127.0.0.1' });
