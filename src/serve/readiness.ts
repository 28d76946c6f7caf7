/**
 * Whether a spec can be served: the parts a service cannot run without are resources and
 * endpoints; any inconsistency would make the service guess, so errors refuse it too.
 * The founding document (nine gaps) gets "nothing to serve".
 */
import { specErrors } from '../check/index.ts';
import { locationText, type Diagnostic } from '../spec/diagnostics.ts';
import { SAFETY_DEFAULTS } from '../spec/defaults.ts';
import type { Spec } from '../spec/model.ts';
import { PART_BY_NAME, PARTS, type PartName } from '../spec/parts.ts';

const NEEDED: readonly PartName[] = ['resources', 'endpoints'];

export interface Readiness {
  readonly ok: boolean;
  /** Why it cannot be served, one line each. */
  readonly reasons: readonly string[];
  /** What the service will do without, one line each (gaps of the other parts, safety defaults). */
  readonly notes: readonly string[];
}

/**
 * What `svcspec check` would count, and no more: the errors (the rules that can find one,
 * src/check/index.ts ERROR_RULES), the gaps and the safety defaults. The warnings and the
 * completeness of each part never change the verdict, and are not computed (issue #20: the
 * verdict is a fifth of a first start after an edit). test/serve/readiness.test.ts holds it
 * equal to the verdict read from the whole check report.
 */
export function readiness(spec: Spec, diagnostics: readonly Diagnostic[]): Readiness {
  const gaps = PARTS.filter((p) => spec.parts[p.name].statement === 'gap');
  if (gaps.length === PARTS.length) return { ok: false, reasons: ['Nothing to serve: every part of the spec is not shown.'], notes: [] };
  const reasons: string[] = [];
  for (const part of NEEDED) {
    if (spec.parts[part].statement !== 'given') reasons.push(`Part ${PART_BY_NAME[part].number}, ${PART_BY_NAME[part].title}, is ${spec.parts[part].statement === 'gap' ? 'not shown' : 'stated as none'}: there is nothing to serve without it.`);
  }
  const errors = specErrors(spec, diagnostics);
  // The first few, placed, so a refusal says what to fix; check lists them all.
  const shown = errorLines(errors);
  if (errors.length) reasons.push(`The spec has ${errors.length === 1 ? 'an error' : `${errors.length} errors`}: ${shown.join('; ')}${errors.length > 3 ? `; and ${errors.length - 3} more` : ''}. Run 'svcspec check ${spec.source.file}' for ${errors.length === 1 ? 'it' : 'all of them'} in context.`);
  const notes = [
    ...gaps.map((p) => `Part ${p.number}, ${p.title}: not shown, so not enforced.`),
    ...SAFETY_DEFAULTS.filter((d) => d.applies(spec)).map((d) => `Default ${d.key}: ${d.value} (the spec is silent).`),
  ];
  return { ok: reasons.length === 0, reasons, notes };
}

/** The first three errors, in the order of the file, each at its place with its code. */
export function errorLines(errors: readonly Diagnostic[]): string[] {
  const at = (d: Diagnostic) => (d.location ? d.location.line * 100_000 + d.location.column : Number.MAX_SAFE_INTEGER);
  return [...errors].sort((a, b) => at(a) - at(b) || a.code.localeCompare(b.code)).slice(0, 3).map((d) => `${d.location ? `${locationText(d.location)}: ` : ''}${d.message} [${d.code}]`);
}
