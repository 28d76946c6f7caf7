/** What `check` finds: a value, rendered by the formatters in src/check/format. */
import type { Diagnostic } from '../spec/diagnostics.ts';
import type { PartStatement } from '../spec/model.ts';
import type { PartName } from '../spec/parts.ts';

/** complete and none count as stated; partial lacks something; gap says nothing. */
export type PartStatus = 'complete' | 'partial' | 'gap' | 'none';

export interface Verdict {
  readonly ok: boolean;
  /** In the founding document's terms: what a builder (tester) has, or lacks. */
  readonly reason: string;
}

export interface PartReport {
  readonly name: PartName;
  readonly number: number;
  readonly title: string;
  readonly statement: PartStatement;
  readonly status: PartStatus;
  /** What the part lacks to be complete, in words. */
  readonly missing: readonly string[];
  readonly builder: Verdict;
  readonly tester: Verdict;
}

/** A value the runtime applies because the spec is silent: documented, never passed off as the spec's. */
export interface AppliedDefault {
  readonly part: PartName;
  readonly key: string;
  readonly value: string;
  readonly why: string;
}

export interface CheckReport {
  readonly file: string;
  /** False when the file could not be read or parsed into a spec at all. */
  readonly loaded: boolean;
  readonly title?: string;
  readonly parts: readonly PartReport[];
  readonly diagnostics: readonly Diagnostic[];
  readonly defaults: readonly AppliedDefault[];
  readonly builder: Verdict;
  readonly tester: Verdict;
  readonly counts: { readonly errors: number; readonly warnings: number; readonly gaps: number; readonly partial: number };
}

export interface CheckOptions {
  /** Gaps do not fail the check (exit 0 with gaps, as long as nothing is inconsistent). */
  readonly allowGaps?: boolean;
}

/** 0 complete and consistent; 1 errors or gaps; 2 unreadable input. */
export function exitCodeOf(report: CheckReport, options: CheckOptions = {}): 0 | 1 | 2 {
  if (!report.loaded) return 2;
  if (report.counts.errors > 0) return 1;
  if (!options.allowGaps && (report.counts.gaps > 0 || report.counts.partial > 0)) return 1;
  return 0;
}
