import { flushCompileCache } from 'node:module';
import { defineCommand } from 'citty';
import { handlerProblems } from '../../serve/app.ts';
import { readSpec } from '../../load/index.ts';
import { readiness } from '../../serve/readiness.ts';
import { cachedReadiness } from '../../serve/readiness-cache.ts';
import { endpointLines, eventLines, sectionsOption, startServer } from '../../serve/server.ts';
import { describeTarget, isDatabaseUrl } from '../../store/open.ts';
import { databaseOf, DB_HELP, redisOf } from '../database.ts';
import { CliError, EXIT } from '../errors.ts';
import { untilStopped } from '../lifetime.ts';
import { oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';
import { watchSpec } from '../watch.ts';

export default defineCommand({
  meta: { name: 'serve', description: 'Run the reference service of a spec: real, persisting (SQLite), enforcing what the spec says.' },
  args: {
    file: { type: 'positional', required: false, description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)' },
    port: { type: 'string', description: 'Port to listen on (default 3000; 0 picks a free one)', default: '3000' },
    host: { type: 'string', description: 'Address to listen on (default 127.0.0.1)', default: '127.0.0.1' },
    db: { type: 'string', description: DB_HELP },
    redis: { type: 'string', description: 'Redis URL the rate limits are counted in, shared by every instance (default: $SVCSPEC_REDIS_URL; else in PostgreSQL when --db is a PostgreSQL URL, else in memory)', valueHint: 'redis://host:6379' },
    durability: { type: 'string', description: 'full: fsync on every commit (nothing acknowledged is lost); normal: faster, may lose the last commits on power loss', default: 'full', valueHint: 'full|normal' },
    quiet: { type: 'boolean', description: 'No request log' },
    handlers: { type: 'string', description: "A module exporting the behaviour of the spec's prose actions: export default { 'loan.remind': async (input) => ... } (without it they answer 501)", valueHint: 'file.js' },
    watch: { type: 'boolean', alias: 'w', description: 'Reload the spec when it changes, keeping the data; a spec with errors is refused and the last good one served on' },
    'allow-private-webhooks': { type: 'boolean', description: 'Let webhooks go to loopback and private addresses (local development and tests; refused otherwise against SSRF)' },
  },
  async run({ args }) {
    const file = specFileOf(args.file);
    let port = Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a whole number from 0 to 65535; '${args.port}' is not.`);
    const durability = oneOf('durability', args.durability, ['full', 'normal'] as const, 'full');
    const db = databaseOf(args.db);
    const redis = redisOf(args.redis);
    if (args.watch && db === ':memory:') throw new CliError('serve --watch keeps the data across reloads in the database file; --db :memory: would lose it at every change. Give a file, or leave --db out.');
    const start = async (banner: boolean) => {
      const started = await startServer({ file, port, host: args.host, ...(db !== undefined ? { db } : {}), ...(redis !== undefined ? { redis } : {}), durability, quiet: Boolean(args.quiet), allowPrivateWebhooks: Boolean(args['allow-private-webhooks']), ...(args.handlers ? { handlers: args.handlers } : {}) });
      if (!started.ok) {
        printDiagnostics(started.diagnostics);
        for (const reason of started.reasons) process.stderr.write(`svcspec: ${reason}\n`);
        throw new CliError(`cannot serve '${file}'.`, started.diagnostics.length || started.address || started.database ? EXIT.usage : EXIT.findings);
      }
      // Reloads listen where the first start did, also when --port 0 picked the port.
      port = Number(new URL(started.url).port);
      const out = process.stderr;
      out.write(`svcspec: serving ${started.spec.title ?? started.spec.purpose.name ?? file} at ${started.url}\n`);
      if (banner) {
        out.write(`svcspec: {base_url} = ${started.url}; data in ${describeTarget(started.db)}${isDatabaseUrl(started.db) ? '' : ` (durability ${durability})`}${started.limits ? `; rate limits counted in ${started.limits}` : ''}\n`);
        for (const line of endpointLines(started.spec.endpoints, started.handlers)) out.write(`  ${line}\n`);
        for (const line of eventLines(started.spec)) out.write(`svcspec: ${line}\n`);
        if (started.docs) out.write(`svcspec: API reference: ${started.url}${started.docs}; the spec's document: ${started.url}${started.docs}/spec\n`);
        for (const note of started.readiness.notes) out.write(`svcspec: note: ${note}\n`);
      }
      return started;
    };
    let current = await start(true);
    // The compiled code of every module loaded so far to the cache bin/svcspec.js enabled, now
    // rather than at an exit a server often never reaches (a kill, a crash); after the
    // listener is up, so a first start answers as soon as it would without a cache.
    setImmediate(() => flushCompileCache?.());
    if (!args.watch) {
      // Runs until stopped; then closes the server (in-flight requests finish) and the store.
      await untilStopped();
      await current.close();
      return EXIT.ok;
    }
    const code = await watchSpec(file, async () => {
      // The new spec is judged before the running service is touched: a broken one is refused
      // and the last good one goes on serving, with the same data.
      const { loaded, text } = await readSpec(file, sectionsOption());
      const spec = loaded.value;
      // Kept as serve's start keeps it: the start below reads this verdict back, not the rules again.
      const ready = spec && text !== undefined ? cachedReadiness(file, text, () => readiness(spec, loaded.diagnostics)) : undefined;
      const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
      // The handlers of --handlers must still name actions of the changed spec, or it could not start.
      const misfits = loaded.value ? handlerProblems(loaded.value, current.handlers) : [];
      if (!loaded.value || !ready?.ok || errors.length || misfits.length) {
        printDiagnostics(errors.length ? errors : loaded.diagnostics);
        for (const reason of [...(ready?.reasons ?? []), ...misfits]) process.stderr.write(`svcspec: ${reason}\n`);
        process.stderr.write(`svcspec: the changed spec is refused; still serving the last good one.\n`);
        return;
      }
      await current.close();
      // Should the new one fail to start (another program took the port meanwhile), the command ends with why.
      current = await start(false);
      process.stderr.write('svcspec: reloaded; the data is kept.\n');
    }, { initial: false });
    await current.close();
    return code;
  },
});
