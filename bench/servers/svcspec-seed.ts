/**
 * Seeds a svcspec store for the serve bench, then exits: the records of seed.json (an array
 * of `{ id, ...fields }`) go into the spec's first resource through the store itself, as the
 * service would store them, at durability normal (no fsync per record).
 *
 *   node bench/servers/svcspec-seed.ts <spec> <db file> <seed.json> [credential.json]
 *
 * With credential.json, a credential of the spec's one issuing scheme holding every declared
 * scope is issued into the database too (as `svcspec credentials create` would), and the
 * headers a client sends with it are written there as JSON.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadSpec } from '../../src/load/index.ts';
import { issueCredential } from '../../src/serve/auth/credentials.ts';
import { openStore } from '../../src/store/open.ts';

const [specFile, dbFile, seedFile, credentialFile] = process.argv.slice(2);
if (!specFile || !dbFile || !seedFile) {
  console.error('usage: svcspec-seed.ts <spec> <db file> <seed.json> [credential.json]');
  process.exit(2);
}
const spec = (await loadSpec(specFile)).value;
const resource = spec?.resources[0];
if (!spec || !resource) {
  console.error(`svcspec bench seed: ${specFile} does not load, or declares no resource`);
  process.exit(1);
}
const records = JSON.parse(readFileSync(seedFile, 'utf8')) as { id: string }[];
const store = await openStore(dbFile, { durability: 'normal' });
await store.migrate(spec.resources.map((r) => r.name));
// In chunks: the store group-commits the inserts of one turn (src/store/sqlite-commit.ts).
for (let i = 0; i < records.length; i += 500) {
  await Promise.all(records.slice(i, i + 500).map(({ id, ...data }) => store.insert(resource.name, { id, data })));
}
if (credentialFile) {
  const issued = await issueCredential(spec, store.credentials, { scopes: spec.authentication.scopes.map((s) => s.name), label: 'serve bench' });
  if (!issued.ok) {
    console.error(`svcspec bench seed: no credential issued: ${issued.message}`);
    process.exit(1);
  }
  writeFileSync(credentialFile, JSON.stringify(issued.issued.headers));
}
await store.close();
