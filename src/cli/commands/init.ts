import { writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineCommand } from 'citty';
import { packageFile } from '../../spec/package-files.ts';
import { NEW_SPEC } from '../../spec/template.ts';
import { CliError, EXIT } from '../errors.ts';

/** The format's JSON Schema in this install of svcspec. */
const SCHEMA = fileURLToPath(packageFile('schema/svcspec.schema.json'));

/**
 * The yaml-language-server modeline (read by the YAML extension of VS Code, and by every editor
 * that runs yaml-language-server): completion, hover and validation against the installed
 * schema, the one matching this version of svcspec. Installed in the project (a node_modules of
 * the spec's folder or above), a relative path, which holds for everyone who checks the project
 * out; otherwise (a checkout of svcspec, a global install) the schema's absolute path.
 */
export function schemaLine(file: string): string {
  const relativePath = relative(dirname(resolve(file)), SCHEMA).split(sep).join('/');
  const inProject = /^(\.\.\/)*node_modules\//.test(relativePath);
  const path = inProject ? (relativePath.startsWith('.') ? relativePath : `./${relativePath}`) : SCHEMA.split(sep).join('/');
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
    // npx without the package in the project runs it from npm's cache, which npm may clear.
    if (/[\\/]_npx[\\/]/.test(SCHEMA)) process.stderr.write(`svcspec: svcspec is not installed in this project, so the schema line points into npx's cache (${SCHEMA}), which npm may clear. 'npm install --save-dev svcspec' and a new init give a line that holds.\n`);
    const next = file === 'svcspec.yaml' ? 'svcspec check' : `svcspec check ${file}`;
    process.stdout.write(`Wrote ${file}: all nine parts, each a gap; editors with yaml-language-server complete and check it against the schema. Next: ${next}\n`);
    return EXIT.ok;
  },
});
