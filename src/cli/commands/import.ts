import { defineCommand } from 'citty';
import { importOpenApiText } from '../../import/isolated.ts';
import { CliError, EXIT } from '../errors.ts';
import { emit, oneOf, printDiagnostics, printDiagnosticsSummary } from '../output.ts';

export default defineCommand({
  meta: { name: 'import', description: "Import an OpenAPI 3.0, 3.1 or 3.2 document as a nine-part spec (or read back the spec a document 'svcspec export' wrote carries); what OpenAPI does not say is left a gap, and what the format cannot hold is reported, summarised by code." },
  args: {
    file: { type: 'positional', required: true, description: 'The OpenAPI document (YAML or JSON)' },
    output: { type: 'string', alias: 'o', description: 'Write the spec to a file instead of stdout' },
    format: { type: 'string', description: 'yaml or json (default: from the -o extension, else yaml)', valueHint: 'yaml|json' },
    verbose: { type: 'boolean', description: 'Print every finding, not a summary by code' },
    events: { type: 'string', description: "An AsyncAPI document 'svcspec export --asyncapi' wrote: its events (part 6) go into the spec", valueHint: 'file' },
  },
  async run({ args }) {
    const inferred = /\.json$/i.test(args.output ?? '') ? 'json' : 'yaml';
    const format = oneOf('format', args.format, ['yaml', 'json'] as const, inferred);
    const imported = await importOpenApiText(args.file, { ...(args.output && args.output !== '-' ? { file: args.output } : {}), ...(args.events ? { events: args.events } : {}) });
    if (args.verbose) printDiagnostics(imported.diagnostics);
    else printDiagnosticsSummary(imported.diagnostics);
    if (!imported.value) throw new CliError(`cannot import '${args.file}': it could not be read as an OpenAPI 3.0, 3.1 or 3.2 document.`, EXIT.usage);
    await emit(format === 'json' ? imported.value.json : imported.value.yaml, args.output);
    if (args.output && args.output !== '-') process.stderr.write(`svcspec: wrote ${args.output}. Next: svcspec check ${args.output}\n`);
    return EXIT.ok;
  },
});
