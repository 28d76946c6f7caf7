/**
 * The main job on the embedded default, for the README's first command: check the library
 * example, write its document, then serve it (SQLite in memory) and talk to it over HTTP.
 */
import { checkFile, exitCodeOf } from '../src/check/index.ts';
import { formatHuman } from '../src/check/format/human.ts';
import { renderDocument } from '../src/doc/index.ts';
import { loadSpec } from '../src/load/index.ts';
import { startServer } from '../src/serve/server.ts';
import { mkdir, writeFile } from 'node:fs/promises';

const file = 'examples/library.yaml';

console.log(`== svcspec check ${file}`);
const report = await checkFile(file);
process.stdout.write(formatHuman(report).split('\n').filter((l) => /^(Builder|Tester|\d+ error)/.test(l)).join('\n') + '\n');
if (exitCodeOf(report) !== 0) process.exit(1);

console.log(`\n== svcspec doc ${file} -o out/library.html`);
const spec = (await loadSpec(file)).value!;
await mkdir('out', { recursive: true });
await writeFile('out/library.html', renderDocument(spec, { format: 'html' }));
console.log('wrote out/library.html');

console.log(`\n== svcspec serve ${file} --db :memory:`);
const server = await startServer({ file, port: 0, db: ':memory:', quiet: true });
if (!server.ok) {
  console.error(server.reasons.join('\n'));
  process.exit(1);
}
console.log(`serving at ${server.url}`);
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(server.url + path, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined });
  const text = await r.text();
  console.log(`${method} ${path} -> ${r.status}${r.headers.get('etag') ? ` ETag ${r.headers.get('etag')}` : ''}\n  ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`);
  return { status: r.status, etag: r.headers.get('etag') ?? '', json: text ? JSON.parse(text) : undefined };
};
try {
  const created = await call('POST', '/books', { title: 'The Dispossessed', authors: ['Ursula K. Le Guin'], pages: 387 });
  await call('POST', '/books', { title: '', authors: 'Le Guin', pages: '387', colour: 'red' });
  await call('PATCH', `/books/${created.json.id}`, { pages: 388 }, { 'if-match': '"0-stale"' });
  await call('PATCH', `/books/${created.json.id}`, { pages: 388 }, { 'if-match': created.etag });
  await call('GET', '/books?limit=5');
  await call('DELETE', '/books');
} finally {
  await server.close();
}
console.log('\nstopped. Run it yourself: npx svcspec serve examples/library.yaml');
