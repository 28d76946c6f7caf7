/** docs/diagnostics.md: every code of DIAGNOSTIC_CATALOG, grouped by the part it concerns. */
import { DIAGNOSTIC_CATALOG } from '../../src/check/catalog.ts';
import { LOAD_CODES } from '../../src/load/codes.ts';
import type { DiagnosticDef } from '../../src/spec/diagnostics.ts';
import { PARTS } from '../../src/spec/parts.ts';
import { anchor, code, document, generatedNotice, table } from './markdown.ts';

const INTRO = `Every finding of \`svcspec\` (loading, checking, exporting) has a stable code from one catalog. Each
is shown with where it stands (\`file:line:column\`), its severity and its message. Errors make
\`svcspec check\` fail; warnings are reported and fail the check only where said (gaps and partial
parts fail it unless \`--allow-gaps\` is given). In the message templates, \`{name}\` is filled in
with the particulars of the finding.`;

function group(title: string, defs: readonly DiagnosticDef[]): string | undefined {
  if (defs.length === 0) return undefined;
  const rows = defs.map((d) => [`${anchor(d.code)}${code(d.code)}`, d.severity, d.part ?? '—', code(d.message), d.description]);
  return `## ${title}\n\n${table(['Code', 'Severity', 'Part', 'Message', 'Description'], rows)}`;
}

export interface DiagnosticsDoc {
  readonly text: string;
  readonly warnings: readonly string[];
}

export function renderDiagnosticsDoc(): DiagnosticsDoc {
  const seen = new Set<string>();
  const warnings: string[] = [];
  const unique = DIAGNOSTIC_CATALOG.filter((d) => {
    if (seen.has(d.code)) {
      warnings.push(`diagnostic catalog: the code '${d.code}' is defined more than once; only the first is documented.`);
      return false;
    }
    seen.add(d.code);
    return true;
  });
  const known = new Set<string>(PARTS.map((p) => p.name));
  // Codes without a part concern the file (the loader's) or the spec as a whole (the checker's).
  const loading = new Set<string>(Object.values(LOAD_CODES).map((d) => d.code));
  const text = document([
    '# Diagnostics',
    generatedNotice(['src/check/catalog.ts (src/load/codes.ts, src/check/codes.ts, src/check/rules/*.rule.ts, src/export/codes.ts)']),
    INTRO,
    `${unique.length} codes: ${unique.filter((d) => d.severity === 'error').length} errors, ${unique.filter((d) => d.severity === 'warning').length} warnings, ${unique.filter((d) => d.severity === 'info').length} notes.`,
    group('Reading the file', unique.filter((d) => d.part === undefined && loading.has(d.code))),
    group('The spec as a whole', unique.filter((d) => d.part === undefined && !loading.has(d.code))),
    ...PARTS.map((p) => group(`${p.number}. ${p.title} (${code(p.name)})`, unique.filter((d) => d.part === p.name))),
    group('Other', unique.filter((d) => d.part !== undefined && !known.has(d.part))),
  ]);
  return { text, warnings };
}
