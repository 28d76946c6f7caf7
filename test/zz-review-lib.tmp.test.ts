import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { runConformance } from '../src/conformance/index.ts';
import { formatHuman } from '../src/conformance/report/format.ts';
import { startProxy } from '../src/proxy/index.ts';
import { mustLoad } from './support/spec.ts';
import { serveForTester } from './conformance/support.ts';

const LIB = readFileSync(new URL('../examples/library.yaml', import.meta.url), 'utf8');
const ENV = LIB.replace('  book:\n    plural: books\n', '  book:\n    plural: books\n    envelope: book\n')
  .replace('  member:\n    plural: members\n', '  member:\n    plural: members\n    envelope: member\n')
  .replace('  loan:\n    plural: loans\n', '  loan:\n    plural: loans\n    envelope: loan\n')
  .replace('  readingList:\n    plural: reading-lists\n', '  readingList:\n    plural: reading-lists\n    envelope: readingList\n')
  .replace('  preferences:\n    plural: preferences\n', '  preferences:\n    plural: preferences\n    envelope: preference\n');
writeFileSync('/tmp/review/library-env.yaml', ENV);

test('tester vs serve, enveloped library, via proxy', async (t) => {
  const s = mustLoad(ENV);
  assert.equal(ENV.match(/envelope: /g)?.length, 5);
  const good = await serveForTester(t, s);
  const proxy = await startProxy({ spec: s, upstream: good.baseUrl });
  t.after(() => proxy.close());
  const report = await runConformance({ spec: s, baseUrl: proxy.url, principals: good.principals, seed: 1, sleep: good.sleep, now: good.now });
  writeFileSync('/tmp/review/lib-report.txt', formatHuman(report));
  writeFileSync('/tmp/review/lib-proxy.json', JSON.stringify(proxy.findings.map((f) => ({ id: `${f.part}/${f.id}`, msg: f.message })), null, 1));
  console.log('fail', report.counts);
});
