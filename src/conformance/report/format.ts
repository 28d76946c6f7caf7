/**
 * The conformance report as text: human (grouped by the nine parts, each failure with the
 * rule it broke, where the spec says it, and the exchange), JSON, and JUnit XML (one
 * testcase per check, a testsuite per part), for CI systems.
 */
import { locationText } from '../../spec/diagnostics.ts';
import { PARTS } from '../../spec/parts.ts';
import type { CheckResult } from '../context.ts';
import type { Exchange } from '../http.ts';
import type { ConformanceReport } from '../index.ts';

const MARK = { pass: '✔', fail: '✖', skip: '-' } as const;

export function formatHuman(report: ConformanceReport): string {
  const out: string[] = [`svcspec test ${report.baseUrl} (seed ${report.seed}; replay with --seed ${report.seed})`, ''];
  if (report.nothingToCheck) return `${out.join('\n')}${report.nothingToCheck}\n`;
  const rows: string[][] = [['Part', 'Passed', 'Failed', 'Skipped']];
  for (const part of PARTS) {
    const results = report.results.filter((r) => r.part === part.name);
    if (!results.length) continue;
    const count = (o: CheckResult['outcome']) => results.filter((r) => r.outcome === o).length;
    rows.push([`${part.number}. ${part.name}`, String(count('pass')), String(count('fail')), String(count('skip'))]);
    const failed = results.filter((r) => r.outcome === 'fail');
    const skipped = results.filter((r) => r.outcome === 'skip');
    out.push(`${part.number}. ${part.title}: ${count('pass')} passed${failed.length ? `, ${failed.length} failed` : ''}${skipped.length ? `, ${skipped.length} skipped` : ''}`);
    for (const r of failed) out.push(...failure(r));
    for (const r of skipped) out.push(`  ${MARK.skip} ${r.title}: ${r.message ?? ''}`);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  out.push('', ...rows.map((r) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ')));
  const { pass, fail, skip } = report.counts;
  out.push('', `${fail === 0 ? 'PASS' : 'FAIL'}: ${pass} passed, ${fail} failed, ${skip} skipped in ${seconds(report.ms)} (${report.requests.toLocaleString('en')} requests${waitText(report.waited)})`);
  return `${out.join('\n')}\n`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The part of the run spent waiting out the implementation's rate limits, which only the spec's quotas decide. */
function waitText(waited: ConformanceReport['waited']): string {
  if (waited.count === 0) return '';
  return `; ${seconds(waited.ms)} of it waiting out ${waited.count} rate limit${waited.count === 1 ? '' : 's'}`;
}

function failure(r: CheckResult): string[] {
  const lines = [`  ${MARK.fail} ${r.title}`, `      ${r.message ?? ''}`];
  if (r.rule) lines.push(`      rule: ${r.rule.text}${r.rule.location ? ` (${locationText(r.rule.location)})` : ''}`);
  if (r.exchange) lines.push(...exchangeLines(r.exchange).map((l) => `      ${l}`));
  return lines;
}

function exchangeLines(ex: Exchange): string[] {
  // A body of several lines (an event stream) keeps its lines, each indented; blank ones dropped.
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s).split(/\r?\n/).filter((l) => l.trim() !== '').map((l) => `          ${l}`);
  const lines = [`request:  ${ex.request.method} ${ex.request.url}`];
  if (ex.request.body !== undefined) lines.push(...clip(ex.request.body));
  lines.push(`response: ${ex.response.status} ${ex.response.headers['content-type'] ?? ''}`.trimEnd());
  if (ex.response.text) lines.push(...clip(ex.response.text));
  return lines;
}

export function formatJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function formatJunit(report: ConformanceReport): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="svcspec test" tests="${report.results.length}" failures="${report.counts.fail}" skipped="${report.counts.skip}" time="${report.ms / 1000}">`];
  for (const part of PARTS) {
    const results = report.results.filter((r) => r.part === part.name);
    if (!results.length) continue;
    const fails = results.filter((r) => r.outcome === 'fail').length;
    const skips = results.filter((r) => r.outcome === 'skip').length;
    out.push(`  <testsuite name="${part.number}. ${xml(part.name)}" tests="${results.length}" failures="${fails}" skipped="${skips}">`);
    for (const r of results) {
      const open = `    <testcase classname="svcspec.${xml(part.name)}" name="${xml(r.title)}"`;
      if (r.outcome === 'pass') out.push(`${open}/>`);
      else if (r.outcome === 'skip') out.push(`${open}><skipped message="${xml(r.message ?? '')}"/></testcase>`);
      else out.push(`${open}><failure message="${xml(r.message ?? '')}">${xml(failure(r).join('\n'))}</failure></testcase>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
