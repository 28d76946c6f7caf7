import { defineCommand } from 'citty';
import { checkFile, exitCodeOf } from '../../check/index.ts';
import { formatHuman } from '../../check/format/human.ts';
import { formatJson } from '../../check/format/json.ts';
import { formatSarif } from '../../check/format/sarif.ts';
import { VERSION } from '../../version.ts';
import { emit, oneOf, useColor } from '../output.ts';
import { specFileOf } from '../spec-file.ts';
import { watchSpec } from '../watch.ts';

export default defineCommand({
  meta: { name: 'check', description: 'Check a spec: gaps, inconsistencies (file:line:column), and whether a builder and a tester can work from it.' },
  args: {
    file: { type: 'positional', required: false, description: 'The spec: .yaml, .yml, .json, or .md in the nine-part layout (default: svcspec.yaml, .yml, .json or .md in the current folder)' },
    format: { type: 'string', description: 'human, json or sarif', default: 'human', valueHint: 'human|json|sarif' },
    'allow-gaps': { type: 'boolean', description: 'Gaps and partial parts do not fail the check' },
    output: { type: 'string', alias: 'o', description: 'Write the report to a file instead of stdout' },
    color: { type: 'boolean', description: 'Colour the human report (default: when stdout is a terminal)' },
    watch: { type: 'boolean', alias: 'w', description: 'Check again whenever the spec changes' },
  },
  async run({ args }) {
    const format = oneOf('format', args.format, ['human', 'json', 'sarif'] as const, 'human');
    const file = specFileOf(args.file);
    const once = async () => {
      const report = await checkFile(file);
      const text = format === 'json' ? formatJson(report)
        : format === 'sarif' ? formatSarif(report, { version: VERSION })
        : formatHuman(report, { color: !args.output && useColor(process.stdout, args.color as boolean | undefined) });
      await emit(text, args.output);
      return exitCodeOf(report, { allowGaps: Boolean(args['allow-gaps']) });
    };
    if (!args.watch) return once();
    return watchSpec(file, async () => {
      const code = await once();
      process.stderr.write(`svcspec: ${new Date().toTimeString().slice(0, 8)} checked ${file}: ${code === 0 ? 'passes' : 'fails'}\n`);
    });
  },
});
