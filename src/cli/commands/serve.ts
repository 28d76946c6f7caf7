import { defineCommand } from 'citty';
import { endpointLines, eventLines, startServer } from '../../serve/server.ts';
import { CliError, EXIT } from '../errors.ts';
import { oneOf, printDiagnostics } from '../output.ts';

export default defineCommand({
  meta: { name: 'serve', description: 'Run the reference service of a spec: real, persisting (SQLite), enforcing what the spec says.' },
  args: {
    file: { type: 'positional', required: true, description: 'The spec' },
    port: { type: 'string', description: 'Port to listen on (default 3000; 0 picks a free one)', default: '3000' },
    host: { type: 'string', description: 'Address to listen on (default 127.0.0.1)', default: '127.0.0.1' },
    db: { type: 'string', description: 'SQLite file, or :memory: (default: <spec>.db next to the spec)' },
    durability: { type: 'string', description: 'full: fsync on every commit (nothing acknowledged is lost); normal: faster, may lose the last commits on power loss', default: 'full', valueHint: 'full|normal' },
    quiet: { type: 'boolean', description: 'No request log' },
    handlers: { type: 'string', description: "A module exporting the behaviour of the spec's prose actions: export default { 'loan.remind': async (input) => ... } (without it they answer 501)", valueHint: 'file.js' },
    'allow-private-webhooks': { type: 'boolean', description: 'Let webhooks go to loopback and private addresses (local development and tests; refused otherwise against SSRF)' },
  },
  async run({ args }) {
    const port = Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a whole number from 0 to 65535; '${args.port}' is not.`);
    const durability = oneOf('durability', args.durability, ['full', 'normal'] as const, 'full');
    const started = await startServer({ file: args.file, port, host: args.host, db: args.db, durability, quiet: Boolean(args.quiet), allowPrivateWebhooks: Boolean(args['allow-private-webhooks']), ...(args.handlers ? { handlers: args.handlers } : {}) });
    if (!started.ok) {
      printDiagnostics(started.diagnostics);
      for (const reason of started.reasons) process.stderr.write(`svcspec: ${reason}\n`);
      throw new CliError(`cannot serve '${args.file}'.`, started.diagnostics.length ? EXIT.usage : EXIT.findings);
    }
    const out = process.stderr;
    out.write(`svcspec: serving ${started.spec.title ?? started.spec.purpose.name ?? args.file} at ${started.url}\n`);
    out.write(`svcspec: {base_url} = ${started.url}; data in ${started.db} (durability ${durability})\n`);
    for (const line of endpointLines(started.spec.endpoints, started.handlers)) out.write(`  ${line}\n`);
    for (const line of eventLines(started.spec)) out.write(`svcspec: ${line}\n`);
    if (started.docs) out.write(`svcspec: API reference: ${started.url}${started.docs}; the spec's document: ${started.url}${started.docs}/spec\n`);
    for (const note of started.readiness.notes) out.write(`svcspec: note: ${note}\n`);
    // Runs until a signal; then closes the server (in-flight requests finish) and the store.
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await started.close();
    return EXIT.ok;
  },
});
