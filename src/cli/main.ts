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

const COMMANDS: Record<string, () => Promise<CommandDef<any>>> = {
  check: () => import('./commands/check.ts').then((m) => m.default),
  credentials: () => import('./commands/credentials.ts').then((m) => m.default),
  doc: () => import('./commands/doc.ts').then((m) => m.default),
  export: () => import('./commands/export.ts').then((m) => m.default),
  import: () => import('./commands/import.ts').then((m) => m.default),
  init: () => import('./commands/init.ts').then((m) => m.default),
  serve: () => import('./commands/serve.ts').then((m) => m.default),
  test: () => import('./commands/test.ts').then((m) => m.default),
  webhooks: () => import('./commands/webhooks.ts').then((m) => m.default),
};

const root = defineCommand({
  meta: { name: 'svcspec', version: VERSION, description: 'One nine-part service interface specification: checked, documented, served and tested.' },
  subCommands: COMMANDS,
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
    process.stdout.write(`${plain(await renderUsage(root))}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const load = COMMANDS[name];
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
  return useColor(process.stdout, undefined) ? text : text.replace(/\u001b\[[0-9;]*m/g, '');
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
