/**
 * The child process of the crash test in sqlite.test.ts: inserts records as fast as it can,
 * eight at a time (so they are group-committed, src/store/sqlite-commit.ts), and prints
 * each id once its insert resolved, until it is killed.
 */
import { openSqliteStore } from '../../src/store/sqlite.ts';

const [path, durability] = process.argv.slice(2) as [string, 'full' | 'normal'];
const store = await openSqliteStore({ path, durability });
await store.migrate(['things']);
const lane = async (lane: number): Promise<never> => {
  for (let i = 0; ; i++) {
    const r = await store.insert('things', { data: { lane, i } });
    process.stdout.write(`${r.id}\n`);
  }
};
await Promise.all(Array.from({ length: 8 }, (_, n) => lane(n)));
