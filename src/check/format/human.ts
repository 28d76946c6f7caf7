/** The human report of `check`: grouped by part, in the nine-part order; colour only on a TTY. */
import { styleText } from 'node:util';
import { locationText, type Diagnostic, type Severity } from '../../spec/diagnostics.ts';
import type { CheckReport, PartStatus, Verdict } from '../report.ts';

type Style = Parameters<typeof styleText>[0];

export function formatHuman(report: CheckReport, options: { color?: boolean } = {}): string {
  const paint = (style: Style, text: string) => (options.color ? styleText(style, text, { validateStream: false }) : text);
  const lines: string[] = [];
  const severityWord: Record<Severity, string> = { error: paint('red', 'error'), warning: paint('yellow', 'warning'), info: paint('cyan', 'info') };
  const statusWord: Record<PartStatus, string> = {
    complete: paint('green', 'complete'), none: paint('green', 'none (stated)'), partial: paint('yellow', 'partial'), gap: paint('red', 'gap: not shown'),
  };
  const finding = (d: Diagnostic) => {
    const where = locationText(d.location);
    lines.push(`    ${severityWord[d.severity]} ${where ? paint('dim', where) + ' ' : ''}${d.message} ${paint('dim', `[${d.code}]`)}`);
  };
  const verdict = (who: string, v: Verdict) => `${who}: ${v.ok ? paint('green', 'yes') : paint('red', 'no')}. ${v.reason}`;

  lines.push(paint('bold', `svcspec check ${report.file}`) + (report.title ? ` — ${report.title}` : ''));
  const fileFindings = report.diagnostics.filter((d) => !d.part);
  if (fileFindings.length) {
    lines.push('', paint('bold', 'The file'));
    fileFindings.forEach(finding);
  }
  for (const part of report.parts) {
    // A part may be stated in full and still be wrong: its errors are said beside its status.
    const errors = report.diagnostics.filter((d) => d.part === part.name && d.severity === 'error').length;
    lines.push('', `${paint('bold', `${part.number}. ${part.title}`)}  ${statusWord[part.status]}${errors ? `, ${paint('red', `${errors} error${errors === 1 ? '' : 's'}`)}` : ''}`);
    for (const d of report.diagnostics) if (d.part === part.name && d.code !== 'part-gap' && d.code !== 'part-partial') finding(d);
    for (const m of part.missing) lines.push(`    ${paint('yellow', 'missing')} ${m}`);
  }
  if (report.defaults.length) {
    lines.push('', paint('bold', 'Defaults the runtime applies where the spec is silent (not the spec\'s values)'));
    for (const d of report.defaults) lines.push(`    ${d.key}: ${d.value}. ${paint('dim', d.why)}`);
  }
  const c = report.counts;
  lines.push(
    '',
    verdict('Builder', report.builder),
    verdict('Tester', report.tester),
    paint('dim', `${c.errors} error${c.errors === 1 ? '' : 's'}, ${c.warnings} warning${c.warnings === 1 ? '' : 's'}, ${c.gaps} gap${c.gaps === 1 ? '' : 's'}, ${c.partial} partial`),
  );
  return `${lines.join('\n')}\n`;
}
