/**
 * The main job on the embedded default, for the README's first command: check the library
 * example, write its document, then serve it (SQLite in memory) and talk to it over HTTP.
 */
import { checkFile, exitCodeOf } from '../src/check/index.ts';
import { formatHuman } from '../src/check/format/human.ts';
import { renderDocument } from '../src/doc/index.ts';
import { loadSpec } from '../src/load/index.ts';
import { issueCredential } from '../src/serve/auth/credentials.ts';
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
/** Headers worth showing: what the guards of parts 5, 8 and 9 add. */
const SHOWN = ['etag', 'www-authenticate', 'ratelimit', 'ratelimit-policy', 'retry-after', 'deprecation', 'sunset', 'link', 'api-version'];
let key: Record<string, string> = {};
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const r = await fetch(server.url + path, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...key, ...headers }, body: body ? JSON.stringify(body) : undefined });
  const text = await r.text();
  const shown = SHOWN.filter((h) => r.headers.has(h)).map((h) => `\n  ${h}: ${r.headers.get(h)}`).join('');
  console.log(`${method} ${path}${headers['api-version'] ? ` (API-Version: ${headers['api-version']})` : ''} -> ${r.status}${shown}\n  ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`);
  return { status: r.status, etag: r.headers.get('etag') ?? '', json: text ? JSON.parse(text) : undefined };
};
try {
  await call('POST', '/books', { title: 'The Dispossessed', authors: ['Ursula K. Le Guin'], pages: 387 });
  // What `svcspec credentials create --spec examples/library.yaml --scopes catalog:write` does.
  const issued = await issueCredential(server.spec, server.store.credentials, { scheme: 'staffKey', scopes: ['catalog:write'], label: 'demo' });
  if (!issued.ok) throw new Error(issued.message);
  key = { ...issued.issued.headers };
  console.log(`\n(issued a staff API key with scope catalog:write: ${issued.issued.usage[0].replace(/_.*/, '_…')})`);
  const created = await call('POST', '/books', { title: 'The Dispossessed', authors: ['Ursula K. Le Guin'], pages: 387 });
  await call('POST', '/books', { title: '', authors: 'Le Guin', pages: '387', colour: 'red' });
  await call('PATCH', `/books/${created.json.id}`, { pages: 388 }, { 'if-match': '"0-stale"' });
  await call('PATCH', `/books/${created.json.id}`, { pages: 388 }, { 'if-match': created.etag });
  await call('GET', '/loans');
  await call('GET', '/books?limit=5', undefined, { 'api-version': '1' });
  await call('GET', '/books?limit=5', undefined, { 'api-version': '7' });
  await call('DELETE', '/books');
} finally {
  await server.close();
}
console.log('\nstopped. Run it yourself: npx svcspec serve examples/library.yaml');
