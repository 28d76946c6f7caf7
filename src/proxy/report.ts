/**
 * The proxy's findings as text: one line per finding as it happens (human on a terminal,
 * NDJSON elsewhere), a summary at the end, and the report shapes of `svcspec test` (its
 * JSON and JUnit, through src/conformance/report/format.ts, each finding a failed check)
 * and SARIF 2.1.0 for code-scanning tools, each finding at the rule's file:line:column.
 */
import { isAbsolute, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CheckResult } from '../conformance/context.ts';
import type { ConformanceReport, PartVerdict } from '../conformance/index.ts';
import { locationText } from '../spec/diagnostics.ts';
import { PART_NAMES } from '../spec/parts.ts';
import type { Finding } from './finding.ts';

export interface ProxyCounts {
  readonly exchanges: number;
  /** Requests the spec does not allow (the client's doing; a finding only where the service served one). */
  readonly outside: number;
  /** Of those, answered by the proxy itself (strict mode). */
  readonly refused: number;
  /** Webhook deliveries relayed and judged. */
  readonly deliveries?: number;
  readonly streamEvents?: number;
}

export function findingLine(f: Finding): string {
  const where = f.rule.location ? locationText(f.rule.location) : f.rule.pointer;
  return `✖ #${f.seq} ${f.exchange.request.method} ${pathOnly(f.exchange.request.url)} -> ${f.exchange.response.status}: ${f.message} [${f.part}/${f.id}]\n    rule: ${f.rule.text} (${where})\n`;
}

export function findingJson(f: Finding): string {
  const { exchange, ...rest } = f;
  return `${JSON.stringify({ ...rest, request: { method: exchange.request.method, url: exchange.request.url }, status: exchange.response.status })}\n`;
}

export function summaryText(findings: readonly Finding[], counts: ProxyCounts, upstream: string): string {
  const byRule = new Map<string, number>();
  for (const f of findings) byRule.set(`${f.part}/${f.id}`, (byRule.get(`${f.part}/${f.id}`) ?? 0) + 1);
  const lines = [`svcspec proxy -> ${upstream}: ${counts.exchanges.toLocaleString('en')} exchanges judged, ${findings.length} finding${findings.length === 1 ? '' : 's'}; ${counts.outside} request${counts.outside === 1 ? '' : 's'} outside the spec${counts.refused ? ` (${counts.refused} refused by the proxy)` : ''}${counts.deliveries ? `; ${counts.deliveries} webhook deliver${counts.deliveries === 1 ? 'y' : 'ies'} judged` : ''}${counts.streamEvents ? `; ${counts.streamEvents} stream event${counts.streamEvents === 1 ? '' : 's'} judged` : ''}`];
  for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) lines.push(`  ${String(n).padStart(5)}  ${rule}`);
  return `${lines.join('\n')}\n`;
}

/** The findings as a report of `svcspec test` (src/conformance), each a failed check of its part. */
export function asConformanceReport(findings: readonly Finding[], counts: ProxyCounts, upstream: string, ms: number): ConformanceReport {
  const results: CheckResult[] = findings.map((f) => ({ part: f.part, id: `${f.id}#${f.seq}`, title: `${f.endpoint ? `${f.endpoint}: ` : ''}${f.id} (exchange ${f.seq})`, outcome: 'fail', rule: f.rule, message: f.message, exchange: f.exchange }));
  const parts: PartVerdict[] = PART_NAMES.flatMap((part) => {
    const fail = findings.filter((f) => f.part === part).length;
    return fail ? [{ part, pass: 0, fail, notChecked: 0, notApplicable: 0, notAsked: 0, verdict: 'fail' as const, needs: [] }] : [];
  });
  return { baseUrl: upstream, seed: 0, results, counts: { pass: 0, fail: findings.length, skip: 0, notChecked: 0, notApplicable: 0, notAsked: 0 }, parts, verdict: findings.length ? 'fail' : 'pass', ms, requests: counts.exchanges, waited: { count: 0, ms: 0 } };
}

/** SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html): one run, a rule per kind of finding. */
export function formatSarif(findings: readonly Finding[], version: string, cwd = process.cwd()): string {
  const ids = [...new Set(findings.map((f) => `${f.part}/${f.id}`))];
  const uri = (file: string) => {
    const rel = relative(cwd, file);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : pathToFileURL(file).href;
  };
  const results = findings.map((f) => ({
    ruleId: `${f.part}/${f.id}`,
    ruleIndex: ids.indexOf(`${f.part}/${f.id}`),
    level: 'error',
    message: { text: `${f.exchange.request.method} ${pathOnly(f.exchange.request.url)} -> ${f.exchange.response.status}: ${f.message} (rule: ${f.rule.text})` },
    ...(f.rule.location ? { locations: [{ physicalLocation: { artifactLocation: { uri: uri(f.rule.location.file) }, region: { startLine: f.rule.location.line, startColumn: f.rule.location.column } } }] } : {}),
    properties: { exchange: f.seq, ...(f.endpoint ? { endpoint: f.endpoint } : {}) },
  }));
  const rules = ids.map((id) => ({ id, name: id, shortDescription: { text: id }, properties: { part: id.split('/')[0] } }));
  return `${JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: [{ tool: { driver: { name: 'svcspec proxy', version, rules } }, results }] }, null, 2)}\n`;
}

function pathOnly(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}
