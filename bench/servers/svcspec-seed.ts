/**
 * Seeds a svcspec store for the serve bench, then exits: the records of seed.json (an array
 * of `{ id, ...fields }`) go into the spec's first resource through the store itself, as the
 * service would store them, at durability normal (no fsync per record).
 *
 *   node bench/servers/svcspec-seed.ts <spec> <db file> <seed.json>
 */
import { readFileSync } from 'node:fs';
import { loadSpec } from '../../src/load/index.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';

const [specFile, dbFile, seedFile] = process.argv.slice(2);
if (!specFile || !dbFile || !seedFile) {
  console.error('usage: svcspec-seed.ts <spec> <db file> <seed.json>');
  process.exit(2);
}
const spec = (await loadSpec(specFile)).value;
const resource = spec?.resources[0];
if (!spec || !resource) {
  console.error(`svcspec bench seed: ${specFile} does not load, or declares no resource`);
  process.exit(1);
}
const records = JSON.parse(readFileSync(seedFile, 'utf8')) as { id: string }[];
const store = await openSqliteStore({ path: dbFile, durability: 'normal' });
await store.migrate(spec.resources.map((r) => r.name));
for (const { id, ...data } of records) await store.insert(resource.name, { id, data });
await store.close();
