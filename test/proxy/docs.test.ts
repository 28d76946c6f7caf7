/** docs/proxy.md lists every kind of finding the proxy's source can make, so a new kind is documented. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/proxy/', import.meta.url));
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

test('docs/proxy.md names every kind of finding', () => {
  const kinds = new Set<string>();
  for (const file of files(SRC)) for (const m of readFileSync(file, 'utf8').matchAll(/\bid: '([a-z0-9-]+)'|'(record-[a-z-]+)'/g)) kinds.add(m[1] ?? m[2]);
  assert.ok(kinds.size > 30, `only ${kinds.size} kinds found in the source`);
  const doc = readFileSync(fileURLToPath(new URL('../../docs/proxy.md', import.meta.url)), 'utf8');
  assert.deepEqual([...kinds].filter((k) => !doc.includes(`\`${k}\``) && !doc.includes(`/${k}\``)), []);
});
