import { writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineCommand } from 'citty';
import { NEW_SPEC } from '../../spec/template.ts';
import { CliError, EXIT } from '../errors.ts';

/** The format's JSON Schema in this install of svcspec (src/cli/commands and dist/cli/commands alike). */
const SCHEMA = fileURLToPath(new URL('../../../schema/svcspec.schema.json', import.meta.url));

/**
 * The yaml-language-server modeline (read by the YAML extension of VS Code, and by every editor
 * that runs yaml-language-server): completion, hover and validation against the installed
 * schema, the one matching this version of svcspec. A path relative to the spec, so the line
 * holds for everyone who checks out the project.
 */
export function schemaLine(file: string): string {
  let path = relative(dirname(resolve(file)), SCHEMA).split(sep).join('/');
  if (!path.startsWith('.')) path = `./${path}`;
  return `# yaml-language-server: $schema=${path}\n`;
}

export default defineCommand({
  meta: { name: 'init', description: 'Write a new spec with all nine parts present and empty; `check` then guides you part by part.' },
  args: {
    file: { type: 'positional', required: false, description: 'Where to write it (default: svcspec.yaml, which the other commands find by themselves)', default: 'svcspec.yaml' },
    force: { type: 'boolean', description: 'Overwrite an existing file' },
  },
  async run({ args }) {
    const file = args.file ?? 'svcspec.yaml';
    try {
      await writeFile(file, schemaLine(file) + NEW_SPEC, { encoding: 'utf8', flag: args.force ? 'w' : 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new CliError(`'${file}' exists; give another name or --force to overwrite it.`);
      throw new CliError(`cannot write '${file}': ${code ?? String(error)}`);
    }
    const next = file === 'svcspec.yaml' ? 'svcspec check' : `svcspec check ${file}`;
    process.stdout.write(`Wrote ${file}: all nine parts, each a gap; editors with yaml-language-server complete and check it against the schema. Next: ${next}\n`);
    return EXIT.ok;
  },
});
