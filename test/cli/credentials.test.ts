/**
 * `svcspec credentials` end to end: a key issued by the CLI into the service's database
 * works against `svcspec serve` running as a real process, and a revocation made by the
 * CLI while the service runs takes effect within about a second.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, killAll, startServe } from '../support/child-server.ts';

const SPEC = `svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [write a note]}]}
resources:
  note:
    plural: notes
    owned: true
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      text: {type: string, required: true}
states: {none: No life cycle.}
endpoints:
  note: [create, read, list]
authentication:
  obtain: Run svcspec credentials create.
  schemes:
    key: {type: apiKey, in: header, name: X-Notes-Key}
    login: {type: basic}
    idp: {type: bearer, tokens: jwt, jwt: {algorithms: [ES256], jwksUrl: "https://id.example/jwks.json"}}
  scopes: {notes:read: Read notes., notes:write: Write notes.}
  default: {scopes: [notes:read]}
  require: {note.create: [notes:write]}
events: {none: No events.}
errors: {shape: problem, catalog: {unauthenticated: {status: 401, title: Unauthenticated}}}
limits: {none: No limits.}
versioning: {none: One version.}
`;

function setup(t: { after(f: () => unknown): void }): { dir: string; spec: string; children: ChildProcess[] } {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-credentials-'));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });
  const spec = join(dir, 'notes.yaml');
  writeFileSync(spec, SPEC);
  return { dir, spec, children };
}

test('cli: a key issued by the CLI works against the running service; revoked by the CLI, it stops working', async (t) => {
  const { spec, children } = setup(t);
  const created = cli(['credentials', 'create', '--spec', spec, '--scheme', 'key', '--scopes', 'notes:read,notes:write', '--principal', 'ann', '--label', 'laptop']);
  assert.equal(created.status, 0, created.stderr);
  const m = /^X-Notes-Key: (sk[0-9a-f]+)_(\S+)$/m.exec(created.stdout);
  assert.ok(m, created.stdout);
  const [header, id] = [`${m[1]}_${m[2]}`, m[1]];
  assert.match(created.stderr, /shown this once/);
  assert.match(created.stderr, /notes\.db/, 'the database beside the spec, the one serve uses');

  const listed = cli(['credentials', 'list', '--spec', spec, '--format', 'json']);
  assert.equal(listed.status, 0);
  const all = JSON.parse(listed.stdout) as { id: string; principal: string; scopes: string[]; label: string; secret?: string }[];
  assert.deepEqual(all.map((c) => [c.id, c.principal, c.scopes, c.label]), [[id, 'ann', ['notes:read', 'notes:write'], 'laptop']]);
  assert.ok(!listed.stdout.includes(m[2]), 'the secret is never listed');

  // As JSON, for scripts: the headers to send whole (the secret alone is not the key).
  const asJson = cli(['credentials', 'create', '--spec', spec, '--scheme', 'key', '--scopes', 'notes:read', '--principal', 'bob', '--format', 'json']);
  assert.equal(asJson.status, 0, asJson.stderr);
  const issued = JSON.parse(asJson.stdout) as { id: string; secret: string; headers: Record<string, string> };
  assert.deepEqual(issued.headers, { 'x-notes-key': `${issued.id}_${issued.secret}` });

  const server = await startServe([spec, '--port', '0', '--quiet']);
  children.push(server.child);
  const post = await fetch(`${server.url}/notes`, { method: 'POST', headers: { 'x-notes-key': header, 'content-type': 'application/json' }, body: '{"text":"hi"}' });
  assert.equal(post.status, 201);
  assert.equal((await fetch(`${server.url}/notes`, { headers: issued.headers })).status, 200, 'the JSON headers work as given');
  assert.equal((await fetch(`${server.url}/notes`)).status, 401);

  const revoked = cli(['credentials', 'revoke', id, '--spec', spec]);
  assert.equal(revoked.status, 0, revoked.stderr);
  let status = 0;
  for (let i = 0; i < 40 && status !== 401; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = (await fetch(`${server.url}/notes`, { headers: { 'x-notes-key': header } })).status;
  }
  assert.equal(status, 401, 'refused within four seconds of the revocation (the cache keeps a verification one second)');
  assert.match(cli(['credentials', 'list', '--spec', spec]).stdout, new RegExp(`${id}.*ann.*\\d{4}-\\d\\d-\\d\\dT.*\\d{4}-\\d\\d-\\d\\dT`));
});

test('cli: credentials refuses what the spec does not declare, with exit 1, and usage errors with exit 2', (t) => {
  const { spec } = setup(t);
  const scope = cli(['credentials', 'create', '--spec', spec, '--scheme', 'key', '--scopes', 'notes:wirte']);
  assert.equal(scope.status, 1);
  assert.match(scope.stderr, /no scope 'notes:wirte'\. Did you mean 'notes:write'\?/);
  const several = cli(['credentials', 'create', '--spec', spec, '--scopes', 'notes:read']);
  assert.equal(several.status, 1);
  assert.match(several.stderr, /name one with --scheme: key, login/);
  const jwt = cli(['credentials', 'create', '--spec', spec, '--scheme', 'idp']);
  assert.equal(jwt.status, 1);
  assert.match(jwt.stderr, /takes JWTs .* does not issue them\. The spec says: Run svcspec credentials create\./);
  const login = cli(['credentials', 'create', '--spec', spec, '--scheme', 'login', '--scopes', 'notes:read']);
  assert.equal(login.status, 0);
  assert.match(login.stdout, /^user u[0-9a-f]+, password \S+\nAuthorization: Basic \S+\n$/);
  assert.equal(cli(['credentials', 'revoke', 'sk-nope', '--spec', spec]).status, 1);
  assert.equal(cli(['credentials', 'list']).status, 2);
  assert.equal(cli(['credentials', 'rotate', '--spec', spec]).status, 2);
  assert.equal(cli(['credentials', 'revoke', '--spec', spec]).status, 2);
  for (const r of [scope, several, jwt]) assert.ok(!/\n\s+at .+:\d+:\d+/.test(r.stderr), 'no stack trace');
});
