/**
 * Can a builder implement it, can a tester check it: per part and overall, in the
 * founding document's terms ("a builder has nothing to implement and a tester has
 * nothing to check").
 */
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { PartName } from '../spec/parts.ts';
import type { PartStatus, Verdict } from './report.ts';

/** Parts whose content a tester checks against a running service; purpose is prose. */
const TESTABLE: ReadonlySet<PartName> = new Set(['resources', 'states', 'endpoints', 'authentication', 'events', 'errors', 'limits', 'versioning']);

export function partVerdicts(part: PartName, status: PartStatus, missing: readonly string[], errors: number): { builder: Verdict; tester: Verdict } {
  const broken = errors > 0 ? `${errors} inconsistenc${errors === 1 ? 'y' : 'ies'} to resolve` : '';
  const lacking = status === 'gap' ? 'not shown' : status === 'partial' ? `it does not say ${missing.join(', ')}` : '';
  const problems = [lacking, broken].filter(Boolean).join('; ');
  const builder: Verdict = problems
    ? { ok: false, reason: `${status === 'gap' ? 'Nothing to implement here' : 'Not buildable yet'}: ${problems}.` }
    : { ok: true, reason: status === 'none' ? 'Stated as not applying: nothing to build.' : 'A builder can implement it.' };
  if (!TESTABLE.has(part)) {
    return { builder, tester: { ok: status !== 'gap', reason: status === 'gap' ? 'Nothing to check here: not shown.' : 'Prose: it guides the tests and is not checked itself.' } };
  }
  const tester: Verdict = problems
    ? { ok: false, reason: status === 'gap' ? 'Nothing to check here: not shown.' : `Not checkable yet: ${problems}.` }
    : { ok: true, reason: status === 'none' ? 'Stated as not applying: its absence is checked.' : 'A tester can check it.' };
  return { builder, tester };
}

export function overallVerdicts(statuses: Readonly<Record<PartName, PartStatus>>, diagnostics: readonly Diagnostic[]): { builder: Verdict; tester: Verdict } {
  const names = Object.keys(statuses) as PartName[];
  const gaps = names.filter((n) => statuses[n] === 'gap');
  const partial = names.filter((n) => statuses[n] === 'partial');
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  if (gaps.length === names.length) {
    return {
      builder: { ok: false, reason: 'A builder has nothing to implement: every part is not shown.' },
      tester: { ok: false, reason: 'A tester has nothing to check: every part is not shown.' },
    };
  }
  const problems = [
    gaps.length ? `${gaps.length} part${gaps.length === 1 ? ' is a gap' : 's are gaps'} (${gaps.join(', ')})` : '',
    partial.length ? `${partial.length} part${partial.length === 1 ? ' is' : 's are'} partial (${partial.join(', ')})` : '',
    errors ? `${errors} error${errors === 1 ? '' : 's'}` : '',
  ].filter(Boolean).join(', ');
  if (!problems) {
    return {
      builder: { ok: true, reason: 'A builder can implement every part.' },
      tester: { ok: true, reason: 'A tester can check every part.' },
    };
  }
  const testerGaps = [...gaps, ...partial].filter((n) => TESTABLE.has(n));
  return {
    builder: { ok: false, reason: `A builder cannot implement it yet: ${problems}.` },
    tester: testerGaps.length || errors
      ? { ok: false, reason: `A tester cannot check all of it yet: ${problems}.` }
      : { ok: true, reason: 'A tester can check every testable part.' },
  };
}
