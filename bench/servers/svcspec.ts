/**
 * The svcspec reference service for the serve and events benches, in a process of its own: what
 * `svcspec serve --quiet` runs (createApp on an openSqliteStore), without the CLI around it.
 *
 *   node bench/servers/svcspec.ts <spec> <db file> <normal|full> [--allow-private-webhooks]
 *
 * `--allow-private-webhooks` is serve's flag of that name (the events bench delivers to a
 * receiver on loopback); webhook delivery otherwise runs with serve's defaults.
 *
 * Listens on a free loopback port and prints `{"port":N}` on stdout. SIGTERM closes the app
 * and the store and exits 0, so a `--cpu-prof` profile is written. The serve bench seeds its records
 * beforehand with bench/servers/svcspec-seed.ts, in a process of its own, so a profile of
 * this one is of serving only.
 */
import { createApp } from '../../src/serve/app.ts';
import { loadSpec } from '../../src/load/index.ts';
import { openStore } from '../../src/store/open.ts';
import { settleNextTick } from '../../src/serve/tick-warm-up.ts';

// As `svcspec serve` does first thing (startServer): V8's form of nextTick settled before it is busy.
settleNextTick();

const [specFile, dbFile, durability = 'full', ...flags] = process.argv.slice(2);
if (!specFile || !dbFile || (durability !== 'normal' && durability !== 'full') || flags.some((f) => f !== '--allow-private-webhooks')) {
  console.error('usage: svcspec.ts <spec> <db file> <normal|full> [--allow-private-webhooks]');
  process.exit(2);
}

const loaded = await loadSpec(specFile);
const spec = loaded.value;
const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
if (!spec || errors.length) {
  console.error(`svcspec bench server: ${specFile} does not load: ${errors.map((d) => d.message).join('; ')}`);
  process.exit(1);
}

// A SQLite file or a PostgreSQL URL (the postgres bench), as `serve --db` takes.
const store = await openStore(dbFile, { durability });
const app = await createApp({ spec, store, logger: false, ...(flags.includes('--allow-private-webhooks') ? { events: { allowPrivateWebhooks: true } } : {}) });
app.addHook('onClose', async () => store.close());
await app.listen({ port: 0, host: '127.0.0.1' });
const bound = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof bound === 'object' && bound ? bound.port : 0 })}\n`);

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0), () => process.exit(1));
});
