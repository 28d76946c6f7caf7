/**
 * One start of `svcspec serve` for the start-up bench: the built CLI (dist/cli/main.js) run
 * in this process as bin/svcspec.js runs it, polled until its first 200, then exit.
 *
 *   node bench/support/startup-serve.ts <dist main.js> <spec> <path to GET> <port> <db file>
 */
const [main, spec, path, port, db] = process.argv.slice(2);
if (!main || !spec || !path || !port || !db) {
  console.error('usage: startup-serve.ts <dist main.js> <spec> <path> <port> <db file>');
  process.exit(2);
}
const cli = (await import(main)) as { run(argv: readonly string[]): Promise<never> };
void cli.run(['serve', spec, '--port', port, '--db', db, '--quiet']);
for (;;) {
  const status = await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status, () => 0);
  if (status === 200) break;
  await new Promise((resolve) => setTimeout(resolve, 1));
}
process.exit(0);
