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
import { curlOf } from './redact.ts';

const MARK = { pass: '✔', fail: '✖', skip: '-' } as const;

export function formatHuman(report: ConformanceReport): string {
  const out: string[] = [`svcspec test ${report.baseUrl} (seed ${report.seed}; replay with --seed ${report.seed})`, ''];
  if (report.nothingToCheck) return `${out.join('\n')}${report.nothingToCheck}\n`;
  const rows: string[][] = [['Part', 'Passed', 'Failed', 'Not checked', 'Not applicable', 'Verdict']];
  for (const part of PARTS) {
    const results = report.results.filter((r) => r.part === part.name);
    const v = report.parts.find((p) => p.part === part.name);
    if (!results.length || !v) continue;
    rows.push([`${part.number}. ${part.name}`, String(v.pass), String(v.fail), String(v.notChecked), String(v.notApplicable + v.notAsked), v.verdict]);
    const failed = results.filter((r) => r.outcome === 'fail');
    const unchecked = results.filter((r) => r.outcome === 'skip' && (r.skipKind ?? 'not-checked') === 'not-checked');
    const nothing = results.filter((r) => r.outcome === 'skip' && r.skipKind !== undefined && r.skipKind !== 'not-checked');
    const said = [`${v.pass} passed`, failed.length ? `${failed.length} failed` : '', unchecked.length ? `${unchecked.length} not checked` : '', nothing.length ? `${nothing.length} not applicable or not asked` : ''].filter(Boolean);
    out.push(`${part.number}. ${part.title}: ${said.join(', ')}`);
    for (const r of failed) out.push(...failure(r, report.seed));
    for (const r of unchecked) out.push(`  ${MARK.skip} not checked: ${r.title}: ${r.message ?? ''}${r.needs ? ` (needs ${r.needs})` : ''}`);
    for (const r of nothing) out.push(`  ${MARK.skip} ${r.skipKind === 'not-asked' ? 'not asked' : 'not applicable'}: ${r.title}: ${r.message ?? ''}`);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  out.push('', ...rows.map((r) => r.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ')));
  const { pass, fail, notChecked, notApplicable, notAsked } = report.counts;
  const needs = [...new Set(report.parts.flatMap((p) => p.needs))];
  out.push('', `${report.verdict.toUpperCase()}: ${pass} passed, ${fail} failed, ${notChecked} not checked, ${notApplicable + notAsked} not applicable or not asked in ${seconds(report.ms)} (${report.requests.toLocaleString('en')} requests${waitText(report.waited)})`);
  if (needs.length) out.push(`To check the rest, give: ${needs.join('; ')}.`);
  if (report.sources?.length) out.push(`Limits counted per client address were spent from ${report.sources.length + 1} addresses: the default and ${report.sources.join(', ')} (--client-addresses none: one).`);
  const left = Object.entries(report.left ?? {});
  if (left.length) out.push(`Left behind (the spec declares no delete for them, or their delete failed): ${left.map(([r, n]) => `${n} ${r}`).join(', ')}.`);
  return `${out.join('\n')}\n`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The part of the run spent waiting out the implementation's rate limits, which only the spec's quotas decide. */
function waitText(waited: ConformanceReport['waited']): string {
  if (waited.count === 0) return '';
  return `; ${seconds(waited.ms)} of it waiting out ${waited.count} rate limit${waited.count === 1 ? '' : 's'}`;
}

function failure(r: CheckResult, seed: number): string[] {
  const lines = [`  ${MARK.fail} ${r.title}`, `      ${r.message ?? ''}`];
  if (r.rule) lines.push(`      rule: ${r.rule.text}${r.rule.location ? ` (${locationText(r.rule.location)})` : ''}`);
  if (r.exchange) {
    lines.push(...exchangeLines(r.exchange).map((l) => `      ${l}`));
    lines.push(`      reproduce (seed ${seed}): ${curlOf(r.exchange)}`);
  }
  return lines;
}

function exchangeLines(ex: Exchange): string[] {
  // A body of several lines (an event stream) keeps its lines, each indented; blank ones dropped.
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s).split(/\r?\n/).filter((l) => l.trim() !== '').map((l) => `          ${l}`);
  const lines = [`request:  ${ex.request.method} ${ex.request.url}`];
  for (const [k, v] of Object.entries(ex.request.headers)) if (k !== 'accept') lines.push(`          ${k}: ${v}`);
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
      else if (r.outcome === 'skip') out.push(`${open}><skipped message="${xml(`${r.skipKind ?? 'not-checked'}: ${r.message ?? ''}${r.needs ? ` (needs ${r.needs})` : ''}`)}"/></testcase>`);
      else out.push(`${open}><failure message="${xml(r.message ?? '')}">${xml(failure(r, report.seed).join('\n'))}</failure></testcase>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
