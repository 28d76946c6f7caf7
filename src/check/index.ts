/**
 * check: which parts are gaps, partial or complete; what is inconsistent (file:line:column);
 * whether a builder can implement it and a tester can check it; which safety defaults apply.
 */
import { loadSpec } from '../load/index.ts';
import { diagnostic, type Diagnostic } from '../spec/diagnostics.ts';
import { SAFETY_DEFAULTS } from '../spec/defaults.ts';
import type { Spec } from '../spec/model.ts';
import { PARTS, type PartName } from '../spec/parts.ts';
import { CHECK_CODES } from './codes.ts';
import { MISSING } from './parts/index.ts';
import type { CheckReport, PartReport, PartStatus } from './report.ts';
import type { Rule } from './rule.ts';
import { RULES } from './rules/index.ts';
import { overallVerdicts, partVerdicts } from './verdict.ts';
import { runRules } from './walk.ts';

export { exitCodeOf, type CheckOptions, type CheckReport, type PartReport, type PartStatus } from './report.ts';

export async function checkFile(file: string): Promise<CheckReport> {
  const loaded = await loadSpec(file);
  return checkSpec(loaded.value, loaded.diagnostics, file);
}

/**
 * The rules that can find an error (a rule declares every code it reports, with its severity).
 * A warning never refuses a spec, so serve's readiness verdict runs only these: 77 of the 119
 * rules, each still walking the model once (test/check/table.ts holds that they find every
 * error the whole set finds).
 */
export const ERROR_RULES: readonly Rule[] = RULES.filter((r) => r.diagnostics.some((d) => d.severity === 'error'));

/** The errors of a loaded spec: its load findings' and the rules', as checkSpec counts them. */
export function specErrors(spec: Spec, loadDiagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...loadDiagnostics, ...runRules(spec, ERROR_RULES)].filter((d) => d.severity === 'error');
}

/** Checks a loaded spec; `spec` undefined means the file could not be read, and only its findings are reported. */
export function checkSpec(spec: Spec | undefined, loadDiagnostics: readonly Diagnostic[], file = spec?.source.file ?? ''): CheckReport {
  if (!spec) {
    const unloaded = overallVerdicts({} as Record<PartName, PartStatus>, loadDiagnostics);
    const reason = 'The file could not be read as a spec.';
    return {
      file, loaded: false, parts: [], diagnostics: loadDiagnostics, defaults: [],
      builder: { ...unloaded.builder, ok: false, reason }, tester: { ...unloaded.tester, ok: false, reason },
      counts: { errors: loadDiagnostics.filter((d) => d.severity === 'error').length, warnings: loadDiagnostics.filter((d) => d.severity === 'warning').length, gaps: 0, partial: 0 },
    };
  }
  const found: Diagnostic[] = [...loadDiagnostics, ...runRules(spec, RULES)];
  // Part verdicts weigh the inconsistencies found in each part.
  const errorsByPart = new Map<PartName, number>();
  for (const d of found) if (d.severity === 'error' && d.part) errorsByPart.set(d.part, (errorsByPart.get(d.part) ?? 0) + 1);
  const statuses = {} as Record<PartName, PartStatus>;
  const parts: PartReport[] = [];
  for (const info of PARTS) {
    const state = spec.parts[info.name];
    const missing = state.statement === 'given' ? MISSING[info.name](spec) : [];
    const status: PartStatus = state.statement === 'gap' ? 'gap' : state.statement === 'none' ? 'none' : missing.length ? 'partial' : 'complete';
    statuses[info.name] = status;
    // Only a finding looks its place up: a clean spec never pays for the position index.
    const where = () => ({ pointer: state.pointer, location: spec.source.locateKey(state.pointer) });
    // The completeness findings belong to the part they speak of.
    if (status === 'gap') found.push({ ...diagnostic(CHECK_CODES.partGap, { number: info.number, title: info.title, asks: info.asks }, where()), part: info.name });
    if (status === 'partial') found.push({ ...diagnostic(CHECK_CODES.partPartial, { number: info.number, title: info.title, missing: missing.join('; ') }, where()), part: info.name });
    parts.push({ name: info.name, number: info.number, title: info.title, statement: state.statement, status, missing, ...partVerdicts(info.name, status, missing, errorsByPart.get(info.name) ?? 0) });
  }
  const overall = overallVerdicts(statuses, found);
  return {
    file,
    loaded: true,
    ...(spec.title ?? spec.purpose.name ? { title: spec.title ?? spec.purpose.name } : {}),
    parts,
    diagnostics: found,
    defaults: SAFETY_DEFAULTS.filter((d) => d.applies(spec)).map(({ part, key, value, why }) => ({ part, key, value, why })),
    builder: overall.builder,
    tester: overall.tester,
    counts: {
      errors: found.filter((d) => d.severity === 'error').length,
      warnings: found.filter((d) => d.severity === 'warning' && d.code !== 'part-gap' && d.code !== 'part-partial').length,
      gaps: Object.values(statuses).filter((s) => s === 'gap').length,
      partial: Object.values(statuses).filter((s) => s === 'partial').length,
    },
  };
}
