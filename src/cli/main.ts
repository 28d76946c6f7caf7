/**
 * The svcspec CLI. Commands are data (citty), loaded lazily, and only call library
 * functions; each returns its exit code. This is the only place that exits.
 */
import { defineCommand, renderUsage, runCommand, type ArgsDef, type CommandDef } from 'citty';
import { closest } from '../spec/diagnostics.ts';
import { VERSION } from '../version.ts';
import { CliError, EXIT } from './errors.ts';
import { useColor } from './output.ts';
import { renameOptions } from './renamed.ts';

/**
 * The commands: each module is imported only when its command runs (a module of a command
 * pulls in its part of the library: serve loads Fastify and SQLite, test the tester). Their
 * descriptions are here too, so `svcspec --help` lists them without importing any: it
 * answers in the time Node takes to start. test/cli/main.test.ts keeps each description
 * equal to its command's own meta.
 */
export const COMMANDS: Record<string, { readonly description: string; readonly load: () => Promise<CommandDef<any>> }> = {
  check: { description: 'Check a spec: gaps, inconsistencies (file:line:column), and whether a builder and a tester can work from it.', load: () => import('./commands/check.ts').then((m) => m.default) },
  credentials: { description: 'Issue, list and revoke the credentials the service checks: API keys, basic users, bearer tokens, OAuth 2.0 clients. Only a hash of each secret is kept; the secret is printed once.', load: () => import('./commands/credentials.ts').then((m) => m.default) },
  doc: { description: 'Render a spec as a document: the nine parts in order, gaps shown as not shown. A spec with errors is refused unless --allow-errors.', load: () => import('./commands/doc.ts').then((m) => m.default) },
  export: { description: 'Export a spec as OpenAPI 3.1 (the endpoints) or AsyncAPI 3.0 (the events), one API version per document; what the format cannot express is reported.', load: () => import('./commands/export.ts').then((m) => m.default) },
  import: { description: "Import an OpenAPI 3.0, 3.1 or 3.2 document as a nine-part spec (or read back the spec a document 'svcspec export' wrote carries); what OpenAPI does not say is left a gap, and what the format cannot hold is reported, summarised by code.", load: () => import('./commands/import.ts').then((m) => m.default) },
  init: { description: 'Write a new spec with all nine parts present and empty; `check` then guides you part by part.', load: () => import('./commands/init.ts').then((m) => m.default) },
  proxy: { description: 'Stand between clients and a running implementation, relay the traffic and judge it by the spec: one line per finding as it happens, a summary on exit.', load: () => import('./commands/proxy.ts').then((m) => m.default) },
  serve: { description: 'Run the reference service of a spec: real, persisting (SQLite), enforcing what the spec says.', load: () => import('./commands/serve.ts').then((m) => m.default) },
  test: { description: 'Check a running implementation, at a base URL, against every part of the spec; say what fails, where and why.', load: () => import('./commands/test.ts').then((m) => m.default) },
  webhooks: { description: 'Webhook subscriptions the operator configures (events.webhooks.subscriptions: config), and the deliveries of any subscription: list, replay dead ones. Works on the service\'s database, running or not (docs/events.md).', load: () => import('./commands/webhooks.ts').then((m) => m.default) },
};

const root = defineCommand({
  meta: { name: 'svcspec', version: VERSION, description: 'One nine-part service interface specification: checked, documented, served and tested.' },
  subCommands: Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [name, c.load])),
});

/** The root's usage: the same command, its subcommands as their name and description only. */
const rootUsage = defineCommand({
  meta: root.meta,
  subCommands: Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [name, defineCommand({ meta: { name, description: c.description } })])),
});

/** citty accepts any option; a demanding CLI refuses the unknown ones, with a suggestion. */
async function refuseUnknownOptions(command: CommandDef<any>, rawArgs: readonly string[]): Promise<void> {
  const defs = ((typeof command.args === 'function' ? await command.args() : await command.args) ?? {}) as ArgsDef;
  const known = new Set<string>(['help', 'h']);
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') continue;
    known.add(name);
    if (def.type === 'boolean') known.add(`no-${name}`);
    for (const alias of [('alias' in def ? def.alias : undefined) ?? []].flat()) known.add(alias);
  }
  for (const arg of rawArgs) {
    if (arg === '--') break;
    const m = /^--?([^=]+)/.exec(arg);
    if (!m || /^-\d/.test(arg) || arg === '-') continue;
    const names = arg.startsWith('--') ? [m[1]] : [...m[1]];
    for (const name of names) {
      if (known.has(name)) continue;
      const guess = closest(name, [...known].filter((k) => k.length > 1));
      throw new CliError(`unknown option '${arg}'.${guess ? ` Did you mean '--${guess}'?` : ''} See 'svcspec ${command.meta && 'name' in command.meta ? command.meta.name : ''} --help'.`);
    }
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...given] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${plain(await renderUsage(rootUsage))}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const load = COMMANDS[name]?.load;
  if (!load) {
    const guess = closest(name, Object.keys(COMMANDS));
    throw new CliError(`unknown command '${name}'.${guess ? ` Did you mean '${guess}'?` : ''} Commands: ${Object.keys(COMMANDS).join(', ')}.`);
  }
  const command = await load();
  const rest = renameOptions(name, given);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${plain(await renderUsage(command, root))}\n`);
    return EXIT.ok;
  }
  await refuseUnknownOptions(command, rest);
  const { result } = await runCommand(command, { rawArgs: [...rest] });
  return typeof result === 'number' ? result : EXIT.ok;
}

/** citty colours its usage text; into a pipe or a file, or with NO_COLOR, it goes without. */
function plain(text: string): string {
  // citty pads every row of its tables to the widest: the spaces that end a line are dropped.
  const trimmed = text.replace(/[ \t]+$/gm, '');
  return useColor(process.stdout, undefined) ? trimmed : trimmed.replace(/\u001b\[[0-9;]*m/g, '').replace(/[ \t]+$/gm, '');
}

export async function run(argv: readonly string[]): Promise<never> {
  let code: number;
  try {
    code = await main(argv);
  } catch (error) {
    code = report(error);
  }
  // Let stdout drain before leaving (a pipe may be slow).
  process.exitCode = code;
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

function report(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`svcspec: ${error.message}\n`);
    return error.exitCode;
  }
  // citty's own usage errors (a missing positional argument, ...).
  if (error instanceof Error && error.name === 'CLIError') {
    process.stderr.write(`svcspec: ${error.message.replace(/\u001b\[[0-9;]*m/g, '')}. See 'svcspec --help'.\n`);
    return EXIT.usage;
  }
  // A bug in svcspec: say so plainly; the stack only on request.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svcspec: internal error: ${message}\nThis is a bug in svcspec; please report it${process.env.SVCSPEC_DEBUG ? '' : ' (set SVCSPEC_DEBUG=1 to see the stack)'}.\n`);
  if (process.env.SVCSPEC_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return EXIT.internal;
}
