/** Findings of the checker itself about each part's completeness. */
import { defineDiagnostic } from '../spec/diagnostics.ts';

export const CHECK_CODES = {
  partGap: defineDiagnostic({
    code: 'part-gap', severity: 'warning',
    message: "Part {number}, {title}: not shown. {asks}",
    description: 'The spec says nothing about this part. Nothing is supplied in its place: write the part, or state `none: <reason>` when it does not apply. `check` fails on gaps unless `--allow-gaps` is given.',
  }),
  partPartial: defineDiagnostic({
    code: 'part-partial', severity: 'warning',
    message: 'Part {number}, {title}: partial; it does not say {missing}.',
    description: 'The part is written but lacks something a builder or a tester needs. `check` fails on partial parts unless `--allow-gaps` is given.',
  }),
} as const;
