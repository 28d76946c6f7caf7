/** The machine report of `check`: the CheckReport as JSON, stable key order. */
import type { CheckReport } from '../report.ts';

export function formatJson(report: CheckReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
