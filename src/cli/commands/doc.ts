import { defineCommand } from 'citty';
import { renderDocument } from '../../doc/index.ts';
import { loadSpec } from '../../load/index.ts';
import { hasErrors } from '../../spec/diagnostics.ts';
import { CliError, EXIT } from '../errors.ts';
import { emit, oneOf, printDiagnostics } from '../output.ts';

export default defineCommand({
  meta: { name: 'doc', description: 'Render a spec as a document: the nine parts in order, gaps shown as not shown.' },
  args: {
    file: { type: 'positional', required: true, description: 'The spec' },
    format: { type: 'string', description: 'md or html (default: from the -o extension, else md)', valueHint: 'md|html' },
    output: { type: 'string', alias: 'o', description: 'Write to a file instead of stdout' },
  },
  async run({ args }) {
    const inferred = args.output?.toLowerCase().endsWith('.html') ? 'html' : 'md';
    const format = oneOf('format', args.format, ['md', 'html'] as const, inferred);
    const loaded = await loadSpec(args.file);
    if (!loaded.value) {
      printDiagnostics(loaded.diagnostics);
      throw new CliError(`cannot render '${args.file}': it could not be read as a spec.`, EXIT.usage);
    }
    if (hasErrors(loaded.diagnostics)) {
      process.stderr.write(`svcspec: '${args.file}' has errors; the document shows what could be read. Run 'svcspec check ${args.file}' for details.\n`);
    }
    await emit(renderDocument(loaded.value, { format }), args.output);
    if (args.output) process.stderr.write(`svcspec: wrote ${args.output}\n`);
    return EXIT.ok;
  },
});
