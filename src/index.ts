/** The public API of svcspec: small and explicit. */
export { loadSpec, loadSpecText, kindOf, type SourceKind } from './load/index.ts';
export { checkFile, checkSpec, exitCodeOf, type CheckOptions, type CheckReport, type PartReport, type PartStatus } from './check/index.ts';
export type { AppliedDefault, Verdict } from './check/report.ts';
export { formatHuman } from './check/format/human.ts';
export { formatJson } from './check/format/json.ts';
export { formatSarif } from './check/format/sarif.ts';
export { DIAGNOSTIC_CATALOG } from './check/catalog.ts';
export { renderDocument } from './doc/index.ts';
export { toDocument } from './spec/serialize.ts';
export { toOpenApi, toAsyncApi, liveVersions, type ExportOptions, type ExportResult } from './export/index.ts';
export { FORMAT_SCHEMA } from './spec/format-schema.ts';
export { PARTS, PART_NAMES, type PartName, type PartInfo } from './spec/parts.ts';
export { HTTP_ERRORS } from './spec/http-errors.ts';
export { SAFETY, SAFETY_DEFAULTS } from './spec/defaults.ts';
export { NEW_SPEC } from './spec/template.ts';
export type { Diagnostic, DiagnosticDef, Result, Severity } from './spec/diagnostics.ts';
export type * from './spec/model.ts';
