import { defineCommand } from 'citty';
import { stringify } from 'yaml';
import { checkSpec } from '../../check/index.ts';
import { toAsyncApi, toOpenApi, versionRefusal } from '../../export/index.ts';
import { loadSpec } from '../../load/index.ts';
import { CliError, EXIT } from '../errors.ts';
import { emit, oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';

export default defineCommand({
  meta: { name: 'export', description: 'Export a spec as OpenAPI 3.1 (the endpoints) or AsyncAPI 3.0 (the events), one API version per document; what the format cannot express is reported.' },
  args: {
    file: { type: 'positional', required: false, description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)' },
    openapi: { type: 'boolean', description: 'Export OpenAPI 3.1.0' },
    asyncapi: { type: 'boolean', description: 'Export AsyncAPI 3.0.0' },
    output: { type: 'string', alias: 'o', description: 'Write to a file instead of stdout' },
    format: { type: 'string', description: 'json or yaml (default: from the -o extension, else json)', valueHint: 'json|yaml' },
    'api-version': { type: 'string', description: "The API version to describe (default: the spec's default version, else the only or newest one served)" },
  },
  async run({ args }) {
    if (Boolean(args.openapi) === Boolean(args.asyncapi)) {
      // `--format openapi` is a natural guess: say where the document kind is chosen.
      const kind = /^(openapi|asyncapi)$/i.exec(args.format ?? '')?.[1]?.toLowerCase();
      throw new CliError(kind ? `--format says json or yaml; the document is chosen with --${kind}: svcspec export --${kind}${args.file ? ` ${args.file}` : ''}.` : 'export needs one of --openapi or --asyncapi.');
    }
    const inferred = /\.ya?ml$/i.test(args.output ?? '') ? 'yaml' : 'json';
    const format = oneOf('format', args.format, ['json', 'yaml'] as const, inferred);
    const file = specFileOf(args.file);
    const loaded = await loadSpec(file);
    if (!loaded.value) {
      printDiagnostics(loaded.diagnostics);
      throw new CliError(`cannot export '${file}': it could not be read as a spec.`, EXIT.usage);
    }
    const spec = loaded.value;
    const asked = args['api-version'];
    if (asked !== undefined) {
      const refusal = versionRefusal(spec, asked);
      if (refusal) throw new CliError(`--api-version: ${refusal}`);
    }
    // An inconsistent spec would carry its inconsistency into the document: refused, as serve refuses it.
    const errors = checkSpec(spec, loaded.diagnostics).diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) {
      printDiagnostics(errors);
      throw new CliError(`cannot export '${file}': it has ${errors.length} error${errors.length === 1 ? '' : 's'}.`, EXIT.findings);
    }
    const options = asked !== undefined ? { version: asked } : {};
    const { document, findings } = args.openapi ? toOpenApi(spec, options) : toAsyncApi(spec, options);
    printDiagnostics(findings);
    await emit(format === 'yaml' ? stringify(document, { lineWidth: 0 }) : `${JSON.stringify(document, null, 2)}\n`, args.output);
    if (args.output) process.stderr.write(`svcspec: wrote ${args.output}\n`);
    return EXIT.ok;
  },
});
