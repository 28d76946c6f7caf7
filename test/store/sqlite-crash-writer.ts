/**
 * The child process of the crash test in sqlite.test.ts: inserts records as fast as it can
 * and prints each id once its insert resolved, until it is killed.
 */
import { openSqliteStore } from '../../src/store/sqlite.ts';

const [path, durability] = process.argv.slice(2) as [string, 'full' | 'normal'];
const store = await openSqliteStore({ path, durability });
await store.migrate(['things']);
for (let i = 0; ; i++) {
  const r = await store.insert('things', { data: { i } });
  process.stdout.write(`${r.id}\n`);
}
