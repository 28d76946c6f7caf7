/**
 * SARIF 2.1.0 (OASIS) for code-scanning tools: one run, the catalog entries used as
 * rules, each finding a result with its physical location.
 * https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
 */
import { isAbsolute, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Severity } from '../../spec/diagnostics.ts';
import { findDiagnosticDef } from '../catalog.ts';
import type { CheckReport } from '../report.ts';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };


export function formatSarif(report: CheckReport, options: { version?: string; cwd?: string } = {}): string {
  const codes = [...new Set(report.diagnostics.map((d) => d.code))];
  const rules = codes.map((code) => {
    const def = findDiagnosticDef(code);
    return {
      id: code,
      name: code,
      shortDescription: { text: firstSentence(def?.description ?? code) },
      fullDescription: { text: def?.description ?? code },
      help: { text: `See docs/diagnostics.md#${code}` },
      defaultConfiguration: { level: LEVEL[def?.severity ?? 'warning'] },
      ...(def?.part ? { properties: { part: def.part } } : {}),
    };
  });
  // Relative to the working directory when the file is inside it (what code-scanning uploads expect), else a file: URI.
  const uri = (file: string) => {
    const rel = relative(options.cwd ?? process.cwd(), file);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : pathToFileURL(file).href;
  };
  const results = report.diagnostics.map((d) => ({
    ruleId: d.code,
    ruleIndex: codes.indexOf(d.code),
    level: LEVEL[d.severity],
    message: { text: d.message },
    locations: d.location
      ? [{
          physicalLocation: {
            artifactLocation: { uri: uri(d.location.file) },
            region: {
              startLine: d.location.line,
              startColumn: d.location.column,
              ...(d.location.endLine ? { endLine: d.location.endLine, endColumn: d.location.endColumn } : {}),
            },
          },
          ...(d.pointer !== undefined ? { logicalLocations: [{ fullyQualifiedName: d.pointer || '/', kind: 'member' }] } : {}),
        }]
      : [],
  }));
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'svcspec', ...(options.version ? { version: options.version } : {}), rules } },
      results,
    }],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

function firstSentence(text: string): string {
  const m = /^.*?[.!?](?=\s|$)/s.exec(text);
  return (m ? m[0] : text).replace(/\s+/g, ' ');
}
