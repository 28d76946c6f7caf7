/**
 * Findings are values. A diagnostic has a stable code from the catalog, a severity, a
 * message in our own words, the part of the spec it concerns, and where it stands
 * (file:line:column). Loaders, the checker and exporters return them; they never throw them.
 */
import { distance } from 'fastest-levenshtein';
import type { Location } from './model.ts';
import type { PartName } from './parts.ts';

export type Severity = 'error' | 'warning' | 'info';

export interface DiagnosticDef {
  /** Stable, kebab-case. */
  readonly code: string;
  readonly severity: Severity;
  /** The part the finding concerns; undefined for findings about the file itself. */
  readonly part?: PartName;
  /** A template: `{name}` is replaced by the parameter of that name. */
  readonly message: string;
  /** What the finding means and how to fix it (docs/diagnostics.md). */
  readonly description: string;
}

export interface Diagnostic {
  readonly code: string;
  readonly severity: Severity;
  readonly part?: PartName;
  readonly message: string;
  readonly location?: Location;
  /** JSON pointer of the node in the source document. */
  readonly pointer?: string;
}

/** A result plus its findings. */
export interface Result<T> {
  readonly value: T;
  readonly diagnostics: readonly Diagnostic[];
}

export function defineDiagnostic<const D extends DiagnosticDef>(def: D): D {
  return def;
}

export function formatMessage(template: string, params: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in params ? String(params[key]) : whole));
}

export function diagnostic(
  def: DiagnosticDef,
  params: Readonly<Record<string, unknown>>,
  where: { location?: Location; pointer?: string } = {},
): Diagnostic {
  return {
    code: def.code,
    severity: def.severity,
    ...(def.part ? { part: def.part } : {}),
    message: formatMessage(def.message, params),
    ...(where.location ? { location: where.location } : {}),
    ...(where.pointer !== undefined ? { pointer: where.pointer } : {}),
  };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** The candidate closest to `name`, if it is close enough to be a likely typo. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const a = name.toLowerCase();
    const b = candidate.toLowerCase();
    // Two neighbouring letters swapped (tset/test, prot/port) is one slip of the fingers, one edit.
    const d = oneSwapApart(a, b) ? 1 : distance(a, b);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // Plain Levenshtein counts a swap of two letters (titel/title) as two edits: allow two from five letters on.
  const allowed = name.length >= 5 ? Math.max(2, Math.floor(name.length / 3)) : 1;
  if (bestDistance <= allowed) return best;
  // A name shortened from its end (duration for durationMinutes, created for createdAt): the one candidate it begins, if only one.
  if (name.length >= 5) {
    const lower = name.toLowerCase();
    const longer = [...candidates].filter((c) => c.toLowerCase().startsWith(lower));
    if (longer.length === 1) return longer[0];
  }
  return undefined;
}

function oneSwapApart(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  const i = [...a].findIndex((c, k) => c !== b[k]);
  return i < a.length - 1 && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** " Did you mean 'x'?" or "". */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const match = closest(name, candidates);
  return match === undefined ? '' : ` Did you mean '${match}'?`;
}

export function locationText(location: Location | undefined): string {
  return location ? `${location.file}:${location.line}:${location.column}` : '';
}
