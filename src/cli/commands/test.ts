import { isIP } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { checkSpec } from '../../check/index.ts';
import { defineCommand } from 'citty';
import { redactor, runConformance, TransportError, type EventRunOptions, type Exchange, type Principal } from '../../conformance/index.ts';
import { formatHuman, formatJson, formatJunit } from '../../conformance/report/format.ts';
import { recordHar, recordNdjson } from '../../conformance/report/record.ts';
import { VERSION } from '../../version.ts';
import { loadSpec } from '../../load/index.ts';
import { didYouMean } from '../../spec/diagnostics.ts';
import { PART_NAMES, type PartName } from '../../spec/parts.ts';
import { CliError, EXIT } from '../errors.ts';
import { emit, oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';
import { Progress } from './test-progress.ts';

export default defineCommand({
  meta: { name: 'test', description: 'Check a running implementation, at a base URL, against every part of the spec; say what fails, where and why.' },
  args: {
    file: { type: 'positional', required: false, description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)' },
    'base-url': { type: 'string', description: 'Where the implementation runs ({base_url}), e.g. http://127.0.0.1:3000', valueHint: 'URL' },
    credentials: { type: 'string', description: 'A JSON file: {"principals": [{"name", "headers": {...}, "scopes": [...]}]}; the first acts for most checks, a second one is needed for ownership', valueHint: 'FILE' },
    header: { type: 'string', description: "One principal's credentials as a header ('X-API-Key: sk…'), assumed to hold every scope" },
    only: { type: 'string', description: 'Only these parts, comma-separated', valueHint: 'PART,…' },
    skip: { type: 'string', description: 'Not these parts, comma-separated', valueHint: 'PART,…' },
    include: { type: 'string', description: 'Opt-in checks: rate-limits (it spends a whole quota)', valueHint: 'rate-limits' },
    seed: { type: 'string', description: 'Replay the generated inputs of an earlier run' },
    format: { type: 'string', description: 'human, json or junit (formerly --report)', default: 'human', valueHint: 'human|json|junit' },
    output: { type: 'string', alias: 'o', description: 'Write the report to a file instead of stdout (formerly --out)' },
    'max-wait': { type: 'string', description: "Seconds to wait out an implementation's rate limit before retrying once (default 60)", default: '60' },
    'client-addresses': { type: 'string', description: "Where a limit is counted per client address: 'auto' sends from several loopback addresses when the implementation is on 127.0.0.1 and the machine has them, 'none' from one, or a comma-separated list of local addresses (default: auto)", valueHint: 'auto|none|ADDRS' },
    'wait-budget': { type: 'string', description: "Seconds the whole run may spend waiting for the implementation's rate-limit windows; checks that would need more are reported not checked, naming the quota (default: no bound)", valueHint: 'SECONDS' },
    'event-timeout': { type: 'string', description: 'Seconds an event may take to arrive after the change that makes it (default 10)', default: '10', valueHint: 'SECONDS' },
    'callback-host': { type: 'string', description: "The host name the implementation reaches the tester's webhook receiver by; given, the receiver listens on every interface (default 127.0.0.1, loopback only)", valueHint: 'HOST' },
    'callback-port': { type: 'string', description: "The webhook receiver's port (default: any free one; fix it for subscriptions: config)", valueHint: 'PORT' },
    'webhook-secret': { type: 'string', description: 'With subscriptions: config, the secret of the subscription the operator registered for the receiver', valueHint: 'whsec_…' },
    'allow-skips': { type: 'boolean', description: 'Exit 0 although some checks asked for could not be checked (no failure)' },
    'show-secrets': { type: 'boolean', description: 'Keep credentials in the report and the record (default: redacted)' },
    record: { type: 'string', description: 'Write every exchange to FILE: NDJSON, or HAR 1.2 when FILE ends in .har', valueHint: 'FILE' },
  },
  async run({ args }) {
    const baseUrl = args['base-url'];
    if (!baseUrl || !/^https?:\/\/[^/]+/.test(baseUrl)) throw new CliError(`--base-url must be the implementation's http(s) URL${baseUrl ? `; '${baseUrl}' is not` : ''}.`);
    const format = oneOf('format', args.format, ['human', 'json', 'junit'] as const, 'human');
    const seed = args.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(args.seed);
    if (!Number.isSafeInteger(seed)) throw new CliError(`--seed must be a whole number; '${args.seed}' is not.`);
    const maxWait = Number(args['max-wait']);
    if (!Number.isFinite(maxWait) || maxWait < 0) throw new CliError(`--max-wait must be a number of seconds; '${args['max-wait']}' is not.`);
    const addresses = args['client-addresses'];
    const clientAddresses = addresses === undefined || addresses === 'auto' ? 'auto' : addresses === 'none' ? 'none' : addresses.split(',').map((a) => a.trim()).filter(Boolean);
    if (Array.isArray(clientAddresses) && (clientAddresses.length === 0 || clientAddresses.some((a) => isIP(a) === 0))) throw new CliError(`--client-addresses takes auto, none or a comma-separated list of IP addresses; '${addresses}' is not.`);
    const waitBudget = args['wait-budget'] === undefined ? undefined : Number(args['wait-budget']);
    if (waitBudget !== undefined && (!Number.isFinite(waitBudget) || waitBudget < 0)) throw new CliError(`--wait-budget must be a number of seconds; '${args['wait-budget']}' is not.`);
    const events = eventOptions(args['event-timeout'], args['callback-host'], args['callback-port'], args['webhook-secret']);
    const file = specFileOf(args.file);
    const loaded = await loadSpec(file);
    // The checker's errors too, not only the loader's: a spec `check` rejects says nothing a tester can hold anyone to.
    const checked = checkSpec(loaded.value, loaded.diagnostics, file);
    const errors = checked.diagnostics.filter((d) => d.severity === 'error');
    if (!loaded.value || errors.length) {
      printDiagnostics(errors.length ? errors : loaded.diagnostics);
      throw new CliError(`cannot test against '${file}': the spec has ${errors.length ? `${errors.length} error${errors.length === 1 ? '' : 's'} (svcspec check ${file} lists them)` : 'errors'}.`, EXIT.usage);
    }
    const principals = await principalsOf(args.credentials, args.header);
    const tty = process.stderr.isTTY === true && format === 'human' && args.output === undefined;
    const progress = new Progress(tty);
    const exchanges: Exchange[] = [];
    const showSecrets = Boolean(args['show-secrets']);
    const report = await runConformance({
      spec: loaded.value,
      baseUrl,
      principals,
      seed,
      showSecrets,
      only: parts('only', args.only),
      skip: parts('skip', args.skip),
      include: (args.include ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      maxWaitMs: maxWait * 1000,
      ...(waitBudget !== undefined ? { waitBudgetMs: waitBudget * 1000 } : {}),
      clientAddresses,
      events,
      onWait: (ms, url) => progress.line(`svcspec: rate limited at ${showSecrets ? url : redactor(principals).text(url)}; waiting ${Math.ceil(ms / 1000)} s`),
      onPart: (e) => progress.part(e),
      onResult: (r) => progress.result(r),
      ...(args.record ? { onExchange: (e: Exchange) => void exchanges.push(e) } : {}),
    }).catch((error: unknown) => {
      if (error instanceof TransportError) throw new CliError(`the implementation could not be reached: ${error.message}`, EXIT.findings);
      throw error;
    }).finally(async () => {
      progress.end();
      if (args.record) await writeRecord(args.record, showSecrets ? exchanges : exchanges.map(redactor(principals).exchange));
    });
    const text = format === 'json' ? formatJson(report) : format === 'junit' ? formatJunit(report) : formatHuman(report);
    await emit(text, args.output);
    if (report.verdict === 'pass' || (report.verdict === 'incomplete' && args['allow-skips'])) return EXIT.ok;
    if (report.verdict === 'incomplete') process.stderr.write(`svcspec: ${report.counts.notChecked} check${report.counts.notChecked === 1 ? '' : 's'} asked for could not be checked (the report says what would let them); --allow-skips accepts that\n`);
    return EXIT.findings;
  },
});

function eventOptions(timeout: string, host: string | undefined, port: string | undefined, secret: string | undefined): EventRunOptions {
  const seconds = Number(timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`--event-timeout must be a positive number of seconds; '${timeout}' is not.`);
  if (host !== undefined && !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+|[0-9a-fA-F:]+)$/.test(host)) throw new CliError(`--callback-host must be a host name or address; '${host}' is not.`);
  const portNumber = port === undefined ? undefined : Number(port);
  if (portNumber !== undefined && (!Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535)) throw new CliError(`--callback-port must be a port number (1-65535); '${port}' is not.`);
  if (secret !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new CliError("--webhook-secret must be a Standard Webhooks secret, 'whsec_' and base64.");
  return { timeoutMs: seconds * 1000, ...(host !== undefined ? { callbackHost: host } : {}), ...(portNumber !== undefined ? { callbackPort: portNumber } : {}), ...(secret !== undefined ? { webhookSecret: secret } : {}) };
}

function parts(option: string, value: string | undefined): PartName[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) if (!(PART_NAMES as readonly string[]).includes(n)) throw new CliError(`--${option}: '${n}' is not a part.${didYouMean(n, PART_NAMES)} Parts: ${PART_NAMES.join(', ')}.`);
  return names as PartName[];
}

async function principalsOf(file: string | undefined, header: string | undefined): Promise<Principal[]> {
  const out: Principal[] = [];
  if (header !== undefined) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new CliError(`--header must be 'Name: value'; '${header}' is not.`);
    out.push({ name: 'header', headers: { [header.slice(0, colon).trim()]: header.slice(colon + 1).trim() } });
  }
  if (file === undefined) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read --credentials '${file}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const list = (parsed as { principals?: unknown }).principals;
  if (!Array.isArray(list)) throw new CliError(`--credentials '${file}' must hold {"principals": [{"name", "headers", "scopes"}]}.`);
  for (const [i, p] of list.entries()) {
    const ok = typeof p?.name === 'string' && typeof p?.headers === 'object' && p.headers !== null && Object.values(p.headers).every((v) => typeof v === 'string') && (p.scopes === undefined || (Array.isArray(p.scopes) && p.scopes.every((s: unknown) => typeof s === 'string')));
    if (!ok) throw new CliError(`--credentials '${file}': principal ${i + 1} needs a name, headers (strings) and optionally scopes (strings).`);
    // `id`: the principal's id at the service, against which managed `created-by` fields are checked.
    out.push({ name: p.name, headers: p.headers, ...(p.scopes ? { scopes: p.scopes } : {}), ...(typeof p.id === 'string' ? { id: p.id } : {}) });
  }
  return out;
}

async function writeRecord(file: string, exchanges: readonly Exchange[]): Promise<void> {
  const text = file.endsWith('.har') ? recordHar(exchanges, { name: 'svcspec', version: VERSION }) : recordNdjson(exchanges);
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new CliError(`cannot write --record '${file}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
