/**
 * The one catalog of diagnostic codes: the loaders', the checker's, every rule's, the exporters' and the importer's.
 * docs/diagnostics.md is generated from it (npm run gen); a test keeps codes unique.
 */
import { EXPORT_CODES } from '../export/codes.ts';
import { IMPORT_CODES } from '../import/codes.ts';
import { LOAD_CODES } from '../load/codes.ts';
import type { DiagnosticDef } from '../spec/diagnostics.ts';
import { CHECK_CODES } from './codes.ts';
import { RULES } from './rules/index.ts';

export const DIAGNOSTIC_CATALOG: readonly DiagnosticDef[] = [
  ...Object.values(LOAD_CODES),
  ...Object.values(CHECK_CODES),
  ...RULES.flatMap((rule) => rule.diagnostics),
  ...Object.values(EXPORT_CODES),
  ...Object.values(IMPORT_CODES),
];

export function findDiagnosticDef(code: string): DiagnosticDef | undefined {
  return DIAGNOSTIC_CATALOG.find((d) => d.code === code);
}
