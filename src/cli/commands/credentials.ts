import { defineCommand } from 'citty';
import { issueCredential, listCredentials, revokeCredential } from '../../serve/auth/credentials.ts';
import { openServiceStore } from '../../serve/server.ts';
import { describeTarget } from '../../store/open.ts';
import type { CredentialRecord } from '../../store/credentials.ts';
import { databaseOf, DB_HELP } from '../database.ts';
import { CliError, EXIT } from '../errors.ts';
import { oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';

const ACTIONS = ['create', 'list', 'revoke'] as const;

export default defineCommand({
  meta: {
    name: 'credentials',
    description: 'Issue, list and revoke the credentials the service checks: API keys, basic users, bearer tokens, OAuth 2.0 clients. Only a hash of each secret is kept; the secret is printed once.',
  },
  args: {
    action: { type: 'positional', required: true, description: 'create | list | revoke', valueHint: 'create|list|revoke' },
    id: { type: 'positional', required: false, description: 'For revoke: the credential id' },
    spec: { type: 'string', description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)', valueHint: 'FILE' },
    db: { type: 'string', description: DB_HELP },
    scheme: { type: 'string', description: 'For create: the scheme, by its name in the spec (may be left out when one scheme issues credentials)' },
    scopes: { type: 'string', description: 'For create: the scopes to grant, comma-separated (declared in the spec)', default: '' },
    principal: { type: 'string', description: 'For create: who acts with it, the owner of the records it creates (default: the credential id)' },
    label: { type: 'string', description: 'For create: a note to recognise it by in lists' },
    format: { type: 'string', description: 'text or json', default: 'text', valueHint: 'text|json' },
  },
  async run({ args }) {
    const action = oneOf('action', args.action, ACTIONS, 'list');
    const format = oneOf('format', args.format, ['text', 'json'] as const, 'text');
    if (action === 'revoke' && !args.id) throw new CliError('credentials revoke needs the id of the credential: svcspec credentials revoke ID --spec FILE.');
    const specFile = specFileOf(args.spec);
    const opened = await openServiceStore(specFile, databaseOf(args.db));
    if (!opened.ok) {
      printDiagnostics(opened.diagnostics);
      if (opened.reason) throw new CliError(opened.reason);
      throw new CliError(`cannot read the spec '${specFile}'.`);
    }
    const { spec, store } = opened;
    try {
      if (action === 'create') {
        const scopes = args.scopes.split(',').map((s) => s.trim()).filter(Boolean);
        const r = await issueCredential(spec, store.credentials, { scopes, ...(args.scheme ? { scheme: args.scheme } : {}), ...(args.principal ? { principal: args.principal } : {}), ...(args.label ? { label: args.label } : {}) });
        if (!r.ok) throw new CliError(r.message, EXIT.findings);
        const { credential: c, secret, usage, headers } = r.issued;
        if (format === 'json') {
          // `headers`: what a client sends, whole (an API key is the credential's id and its secret joined, not the secret alone).
          process.stdout.write(`${JSON.stringify({ ...summary(c), secret, usage, ...(Object.keys(headers).length ? { headers } : {}) }, null, 2)}\n`);
        } else {
          process.stderr.write(`svcspec: issued ${c.kind === 'apiKey' ? 'an API key' : c.kind === 'basic' ? 'a basic user' : c.kind === 'client' ? 'an OAuth 2.0 client' : 'a bearer token'} for scheme '${c.scheme}' (id ${c.id}, principal ${c.principal}, scopes ${c.scopes.join(' ') || 'none'}), in ${describeTarget(opened.db)}\n`);
          process.stderr.write('svcspec: the secret is shown this once; only its hash is kept.\n');
          for (const line of usage) process.stdout.write(`${line}\n`);
        }
        return EXIT.ok;
      }
      if (action === 'list') {
        const all = await listCredentials(store.credentials);
        if (format === 'json') process.stdout.write(`${JSON.stringify(all.map(summary), null, 2)}\n`);
        else process.stdout.write(table(all));
        return EXIT.ok;
      }
      const r = await revokeCredential(store.credentials, args.id as string);
      if (!r.ok) throw new CliError(r.message, EXIT.findings);
      process.stdout.write(`${r.message}\n`);
      return EXIT.ok;
    } finally {
      await store.close();
    }
  },
});

function summary(c: CredentialRecord) {
  return {
    id: c.id, scheme: c.scheme, kind: c.kind, principal: c.principal, scopes: c.scopes,
    created: new Date(c.createdAt).toISOString(),
    ...(c.label !== undefined ? { label: c.label } : {}),
    ...(c.revokedAt !== undefined ? { revoked: new Date(c.revokedAt).toISOString() } : {}),
  };
}

function table(all: readonly CredentialRecord[]): string {
  if (all.length === 0) return 'No credentials issued.\n';
  const rows = [['ID', 'SCHEME', 'KIND', 'PRINCIPAL', 'SCOPES', 'CREATED', 'REVOKED', 'LABEL']];
  for (const c of all) {
    rows.push([c.id, c.scheme, c.kind, c.principal, c.scopes.join(' ') || '-', new Date(c.createdAt).toISOString(), c.revokedAt !== undefined ? new Date(c.revokedAt).toISOString() : '-', c.label ?? '']);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}
