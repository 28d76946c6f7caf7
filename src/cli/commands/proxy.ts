import { createWriteStream, type WriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { defineCommand } from 'citty';
import { checkSpec } from '../../check/index.ts';
import { formatJson, formatJunit, redactor, type Exchange } from '../../conformance/index.ts';
import { recordHar } from '../../conformance/report/record.ts';
import { loadSpec } from '../../load/index.ts';
import { asConformanceReport, findingJson, findingLine, formatSarif, replay, startProxy, summaryText, type Finding, type ProxyCounts } from '../../proxy/index.ts';
import type { Spec } from '../../spec/model.ts';
import { VERSION } from '../../version.ts';
import { CliError, EXIT } from '../errors.ts';
import { untilStopped } from '../lifetime.ts';
import { emit, oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';

export default defineCommand({
  meta: { name: 'proxy', description: 'Stand between clients and a running implementation, relay the traffic and judge it by the spec: one line per finding as it happens, a summary on exit.' },
  args: {
    file: { type: 'positional', required: false, description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)' },
    upstream: { type: 'string', description: 'Where the implementation runs, e.g. http://127.0.0.1:3000', valueHint: 'URL' },
    port: { type: 'string', description: 'Port to listen on (default 3001; 0 picks a free one)', default: '3001' },
    host: { type: 'string', description: 'Address to listen on (default 127.0.0.1)', default: '127.0.0.1' },
    mode: { type: 'string', description: "report: relay everything, record findings; strict: answer a request the spec refuses with its declared error, and mark a violating answer (Svcspec-Findings)", default: 'report', valueHint: 'report|strict' },
    lines: { type: 'string', description: 'The line of each finding as it happens: human or ndjson (default: human on a terminal, ndjson elsewhere)', valueHint: 'human|ndjson' },
    format: { type: 'string', description: 'On exit, also write the findings as the report of `svcspec test` (json, junit) or as SARIF; without -o to stdout, the lines then to stderr', valueHint: 'json|junit|sarif' },
    output: { type: 'string', alias: 'o', description: 'Write the --format report to a file instead of stdout' },
    record: { type: 'string', description: 'Write every exchange to FILE: NDJSON as it happens, or HAR 1.2 on exit when FILE ends in .har (`--replay FILE` judges it again)', valueHint: 'FILE' },
    replay: { type: 'string', description: 'Judge recorded traffic (NDJSON or HAR of --record, or of `svcspec test --record`) instead of relaying', valueHint: 'FILE' },
    receiver: { type: 'string', description: "The client's webhook receiver: a subscription to a URL under it, made through the proxy, is registered at the proxy's relay address, where each delivery is judged and relayed to that URL", valueHint: 'URL' },
    'webhook-secret': { type: 'string', description: "With subscriptions: config, the secret of the subscription the operator registered at the proxy's relay address (/__svcspec/webhooks?to=<receiver URL>)", valueHint: 'whsec_…' },
    'show-secrets': { type: 'boolean', description: 'Keep credentials in the finding lines, the report and the record (default: redacted)' },
  },
  async run({ args }) {
    const mode = oneOf('mode', args.mode, ['report', 'strict'] as const, 'report');
    const reportFormat = args.format === undefined ? undefined : oneOf('format', args.format, ['json', 'junit', 'sarif'] as const, 'json');
    // The report takes stdout when it has no file of its own; the lines then go to stderr.
    const out = reportFormat && (args.output === undefined || args.output === '-') ? process.stderr : process.stdout;
    const lines = oneOf('lines', args.lines, ['human', 'ndjson'] as const, out.isTTY ? 'human' : 'ndjson');
    const port = Number(args.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a whole number from 0 to 65535; '${args.port}' is not.`);
    if (args.replay === undefined && (!args.upstream || !/^http:\/\/[^/]+/.test(args.upstream))) throw new CliError(`--upstream must be the implementation's http:// URL${args.upstream ? `; '${args.upstream}' is not` : ''}.`);
    if (args.receiver !== undefined && !/^https?:\/\/[^/]+/.test(args.receiver)) throw new CliError(`--receiver must be the http(s) URL of the webhook receiver; '${args.receiver}' is not.`);
    if (args['webhook-secret'] !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(args['webhook-secret'])) throw new CliError("--webhook-secret must be a Standard Webhooks secret, 'whsec_' and base64.");
    const file = specFileOf(args.file);
    const spec = await loadChecked(file);
    const redact = args['show-secrets'] ? undefined : redactorOf(spec);
    const shown = (f: Finding): Finding => (redact ? { ...f, exchange: redact.exchange(f.exchange) } : f);
    const print = (f: Finding) => out.write(lines === 'human' ? findingLine(shown(f)) : findingJson(shown(f)));
    const started = performance.now();

    if (args.replay !== undefined) {
      const { findings, judge } = replay(spec, await readRecord(args.replay));
      for (const f of findings) print(f);
      return finish(findings, judge.counts, `replay of ${args.replay}`);
    }

    const record = args.record === undefined ? undefined : recorder(args.record);
    const proxy = await startProxy({
      spec,
      upstream: args.upstream as string,
      port,
      host: args.host,
      mode,
      onFinding: print,
      ...(args.receiver ? { receiver: args.receiver } : {}),
      ...(args['webhook-secret'] ? { webhookSecret: args['webhook-secret'] } : {}),
      onExchange: (e) => record?.add(redact ? redact.exchange(e) : e),
      onUpstreamError: (message) => process.stderr.write(`svcspec: the upstream did not answer: ${message}\n`),
    }).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(error.code === 'EADDRINUSE' ? `port ${port} is in use; --port 0 picks a free one.` : `cannot start the proxy: ${error.message}`);
    });
    process.stderr.write(`svcspec proxy: ${proxy.url} -> ${args.upstream} (${mode} mode); Ctrl-C stops it and prints the summary\n`);
    await untilStopped();
    await proxy.close();
    await record?.close();
    return finish(proxy.findings, proxy.judge.counts, args.upstream as string);

    async function finish(findings: readonly Finding[], counts: ProxyCounts, upstream: string): Promise<number> {
      const summary = summaryText(findings, counts, upstream);
      if (lines === 'human') out.write(`\n${summary}`);
      else out.write(`${JSON.stringify({ summary: { upstream, exchanges: counts.exchanges, findings: findings.length, outside: counts.outside, refused: counts.refused } })}\n`);
      if (reportFormat) {
        const all = findings.map(shown);
        const text = reportFormat === 'sarif' ? formatSarif(all, VERSION) : reportFormat === 'junit' ? formatJunit(asConformanceReport(all, counts, upstream, Math.round(performance.now() - started))) : formatJson(asConformanceReport(all, counts, upstream, Math.round(performance.now() - started)));
        await emit(text, args.output);
      }
      return findings.length ? EXIT.findings : EXIT.ok;
    }
  },
});

async function loadChecked(file: string): Promise<Spec> {
  const loaded = await loadSpec(file);
  const checked = checkSpec(loaded.value, loaded.diagnostics, file);
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.value || errors.length) {
    printDiagnostics(errors.length ? errors : loaded.diagnostics);
    throw new CliError(`cannot judge traffic by '${file}': the spec has ${errors.length ? `${errors.length} error${errors.length === 1 ? '' : 's'} (svcspec check ${file} lists them)` : 'errors'}.`, EXIT.usage);
  }
  return loaded.value;
}

/** The credentials the spec's schemes read, redacted by name (their values are unknown to the proxy). */
function redactorOf(spec: Spec) {
  const names = spec.authentication.schemes.flatMap((s) => (s.type === 'apiKey' && s.in === 'header' ? [s.param] : []));
  return redactor([{ headers: Object.fromEntries(names.map((n) => [n, ''])) }]);
}

/** NDJSON written as each exchange completes; HAR gathered and written on exit. */
function recorder(file: string): { add(e: Exchange): void; close(): Promise<void> } {
  if (file.endsWith('.har')) {
    const all: Exchange[] = [];
    return {
      add: (e) => void all.push(e),
      close: async () => {
        try {
          await writeFile(file, recordHar(all, { name: 'svcspec proxy', version: VERSION }));
        } catch (error) {
          throw new CliError(`cannot write --record '${file}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
      },
    };
  }
  const stream: WriteStream = createWriteStream(file);
  stream.on('error', (error: NodeJS.ErrnoException) => process.stderr.write(`svcspec: cannot write --record '${file}': ${error.code ?? error.message}\n`));
  return {
    add: (e) => void stream.write(`${JSON.stringify(e)}\n`),
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}

/** Exchanges of an NDJSON record (one a line) or of a HAR 1.2 file. */
async function readRecord(file: string): Promise<Exchange[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read --replay '${file}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    if (/^\s*\{\s*"log"/.test(text)) return harExchanges(JSON.parse(text));
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Exchange);
  } catch (error) {
    throw new CliError(`--replay '${file}' is neither NDJSON of exchanges nor HAR: ${(error as Error).message}`);
  }
}

interface HarEntry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text?: string } };
  response: { status: number; headers: { name: string; value: string }[]; content: { text?: string } };
}

function harExchanges(har: { log?: { entries?: HarEntry[] } }): Exchange[] {
  const headers = (list: { name: string; value: string }[]) => Object.fromEntries(list.map((h) => [h.name.toLowerCase(), h.value]));
  return (har.log?.entries ?? []).map((e) => {
    const text = e.response.content.text ?? '';
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      request: { method: e.request.method, url: e.request.url, headers: headers(e.request.headers), ...(e.request.postData?.text !== undefined ? { body: e.request.postData.text } : {}) },
      response: { status: e.response.status, headers: headers(e.response.headers), text, json },
      ms: e.time,
      at: Date.parse(e.startedDateTime),
    };
  });
}
