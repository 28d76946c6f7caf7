import { writeFile } from 'node:fs/promises';
import { defineCommand } from 'citty';
import { NEW_SPEC } from '../../spec/template.ts';
import { CliError, EXIT } from '../errors.ts';

export default defineCommand({
  meta: { name: 'init', description: 'Write a new spec with all nine parts present and empty; `check` then guides you part by part.' },
  args: {
    file: { type: 'positional', required: false, description: 'Where to write it (default: svcspec.yaml)', default: 'svcspec.yaml' },
    force: { type: 'boolean', description: 'Overwrite an existing file' },
  },
  async run({ args }) {
    const file = args.file ?? 'svcspec.yaml';
    try {
      await writeFile(file, NEW_SPEC, { encoding: 'utf8', flag: args.force ? 'w' : 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new CliError(`'${file}' exists; give another name or --force to overwrite it.`);
      throw new CliError(`cannot write '${file}': ${code ?? String(error)}`);
    }
    process.stdout.write(`Wrote ${file}: all nine parts, each a gap. Next: svcspec check ${file}\n`);
    return EXIT.ok;
  },
});
