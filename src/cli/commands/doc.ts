import { extname } from 'node:path';
import { defineCommand } from 'citty';
import { specErrors } from '../../check/index.ts';
import { renderDocument } from '../../doc/index.ts';
import { loadSpec, readSourceFile } from '../../load/index.ts';
import { CliError, EXIT } from '../errors.ts';
import { emit, oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';
import { watchSpec } from '../watch.ts';

export default defineCommand({
  meta: { name: 'doc', description: 'Render a spec as a document: the nine parts in order, gaps shown as not shown. A spec with errors is refused unless --allow-errors.' },
  args: {
    file: { type: 'positional', required: false, description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)' },
    format: { type: 'string', description: 'md or html (default: from the -o extension, else md)', valueHint: 'md|html' },
    output: { type: 'string', alias: 'o', description: 'Write to a file instead of stdout' },
    'allow-errors': { type: 'boolean', description: 'Render a spec that has errors anyway, with the errors marked in the document' },
    watch: { type: 'boolean', alias: 'w', description: 'Render again whenever the spec changes (needs -o)' },
  },
  async run({ args }) {
    const file = specFileOf(args.file);
    // The format from the file's extension; one that names neither (`-o spec.pdf`) is refused rather than filled with Markdown.
    const ext = args.output && args.output !== '-' ? extname(args.output).toLowerCase() : '';
    const inferred = ext === '.html' || ext === '.htm' ? 'html' : 'md';
    if (!args.format && ext !== '' && ext !== '.md' && ext !== '.markdown' && inferred === 'md') {
      throw new CliError(`'${args.output}': doc writes Markdown (.md) or HTML (.html, .htm); name the file so, or pass --format md or --format html.`);
    }
    const format = oneOf('format', args.format, ['md', 'html'] as const, inferred);
    const once = async (): Promise<number> => {
      const loaded = await loadSpec(file);
      if (!loaded.value) {
        printDiagnostics(loaded.diagnostics);
        throw new CliError(`cannot render '${file}': it could not be read as a spec.`, EXIT.usage);
      }
      // The rules' errors too, not only the loader's: a transition to a state never declared is an error of the spec as much as a misspelled key.
      const errors = specErrors(loaded.value, loaded.diagnostics);
      if (errors.length && !args['allow-errors']) {
        printDiagnostics(errors);
        throw new CliError(`'${file}' has ${errors.length} error${errors.length === 1 ? '' : 's'}; not rendered. Correct ${errors.length === 1 ? 'it' : 'them'}, or pass --allow-errors for a document that marks ${errors.length === 1 ? 'it' : 'them'}.`, EXIT.findings);
      }
      if (errors.length) process.stderr.write(`svcspec: '${file}' has ${errors.length} error${errors.length === 1 ? '' : 's'}, marked in the document.\n`);
      const source = await readSourceFile(file);
      await emit(renderDocument(loaded.value, { format, errors, ...(typeof source === 'string' ? { source } : {}) }), args.output);
      if (args.output) process.stderr.write(`svcspec: wrote ${args.output}\n`);
      return EXIT.ok;
    };
    if (!args.watch) return once();
    if (!args.output || args.output === '-') throw new CliError('doc --watch needs -o FILE: the document is written again on every change.');
    return watchSpec(file, async () => {
      try {
        await once();
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        process.stderr.write(`svcspec: ${error.message}\n`);
      }
    });
  },
});
