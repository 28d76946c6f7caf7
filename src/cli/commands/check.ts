import { defineCommand } from 'citty';
import { checkFile, exitCodeOf } from '../../check/index.ts';
import { formatHuman } from '../../check/format/human.ts';
import { formatJson } from '../../check/format/json.ts';
import { formatSarif } from '../../check/format/sarif.ts';
import { VERSION } from '../../version.ts';
import { emit, oneOf, useColor } from '../output.ts';

export default defineCommand({
  meta: { name: 'check', description: 'Check a spec: gaps, inconsistencies (file:line:column), and whether a builder and a tester can work from it.' },
  args: {
    file: { type: 'positional', required: true, description: 'The spec (.yaml, .yml, .json, or .md in the nine-part layout)' },
    format: { type: 'string', description: 'human, json or sarif', default: 'human', valueHint: 'human|json|sarif' },
    'allow-gaps': { type: 'boolean', description: 'Gaps and partial parts do not fail the check' },
    output: { type: 'string', alias: 'o', description: 'Write the report to a file instead of stdout' },
    color: { type: 'boolean', description: 'Colour the human report (default: when stdout is a terminal)' },
  },
  async run({ args }) {
    const format = oneOf('format', args.format, ['human', 'json', 'sarif'] as const, 'human');
    const report = await checkFile(args.file);
    const text = format === 'json' ? formatJson(report)
      : format === 'sarif' ? formatSarif(report, { version: VERSION })
      : formatHuman(report, { color: !args.output && useColor(process.stdout, args.color as boolean | undefined) });
    await emit(text, args.output);
    return exitCodeOf(report, { allowGaps: Boolean(args['allow-gaps']) });
  },
});
