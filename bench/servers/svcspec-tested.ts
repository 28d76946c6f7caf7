/**
 * The reference service for the tester bench (bench/tester.bench.ts), in a process of its own:
 * what `svcspec serve --quiet --allow-private-webhooks` runs (createApp on an openSqliteStore,
 * durability full, webhook delivery with serve's defaults), with two things the bench needs:
 *
 *   - principals for the tester: ann and bob holding every declared scope, carl holding only
 *     the first (for the 403 checks), issued into its database before it listens, as
 *     `svcspec credentials create --principal NAME` would (an OAuth scheme gets a token, as
 *     its token endpoint would issue it);
 *   - a clock the bench moves over IPC: `{ "advance": ms }` is answered `{ "advanced": ms }`.
 *     The tester's waits for the spec's rate-limit windows move this clock instead of taking
 *     time, as the tests of the tester do (test/conformance/support.ts): a spec that allows 5
 *     creates a minute would otherwise make the run minutes of sleep, which measures the spec's
 *     quota, not the tester.
 *
 *   node bench/servers/svcspec-tested.ts <spec> <db file>
 *
 * Prints `{"port":N,"principals":[{name, headers, scopes}...]}` on stdout. SIGTERM closes it.
 */
import { createApp } from '../../src/serve/app.ts';
import { loadSpec } from '../../src/load/index.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { credentialHeaders, testerPrincipals } from '../../test/serve/support/credentials.ts';

const [specFile, dbFile] = process.argv.slice(2);
if (!specFile || !dbFile || !process.send) {
  console.error('usage: svcspec-tested.ts <spec> <db file> (started with an IPC channel)');
  process.exit(2);
}

const loaded = await loadSpec(specFile);
const spec = loaded.value;
if (!spec || loaded.diagnostics.some((d) => d.severity === 'error')) {
  console.error(`svcspec tester bench server: ${specFile} does not load`);
  process.exit(1);
}

let skew = 0;
process.on('message', (message: { advance?: unknown }) => {
  if (typeof message.advance !== 'number') return;
  skew += message.advance;
  process.send!({ advanced: message.advance });
});

const store = await openSqliteStore({ path: dbFile, durability: 'full' });
await store.migrate(spec.resources.map((r) => r.name));
const principals = await testerPrincipals(spec, store);
// dora lacks only the first scope (carl holds only it): every endpoint that needs a scope has someone who lacks it, as test/conformance/support.ts has.
const scopes = spec.authentication.scopes.map((s) => s.name);
if (principals.length && scopes.length > 1) principals.push({ name: 'dora', headers: await credentialHeaders(spec, store, { principal: 'dora', scopes: scopes.slice(1) }), scopes: scopes.slice(1) });

const app = await createApp({ spec, store, logger: false, now: () => Date.now() + skew, events: { allowPrivateWebhooks: true } });
app.addHook('onClose', async () => store.close());
await app.listen({ port: 0, host: '127.0.0.1' });
const bound = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof bound === 'object' && bound ? bound.port : 0, principals })}\n`);

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0), () => process.exit(1));
});
