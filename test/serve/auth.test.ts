/**
 * Part 5 at run time: every scheme the format declares (API key in a header and in the
 * query, opaque bearer tokens, HTTP basic, OAuth 2.0 client credentials with the service's
 * own token endpoint, JWTs verified against a JWKS file and a JWKS URL), 401 with
 * `WWW-Authenticate`, 403 for a missing scope, public endpoints, revocation, and ownership
 * (another principal's records are 404 everywhere and never listed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { loadSpec } from '../../src/load/index.ts';
import { createApp } from '../../src/serve/app.ts';
import { issueCredential, revokeCredential } from '../../src/serve/auth/credentials.ts';
import { hashSecret, secretMatches } from '../../src/serve/auth/secrets.ts';
import type { Spec } from '../../src/spec/model.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { mustLoad } from '../support/spec.ts';
import { send, type Answer } from './support/requests.ts';

/** Notes, owned by their writer, with a life cycle; `authentication` as each test needs. */
function notesSpec(authentication: string): string {
  return `svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [write a note]}]}
resources:
  note:
    plural: notes
    owned: true
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      text: {type: string, required: true}
      status: {type: string, enum: [draft, published], readOnly: true}
  tag:
    plural: tags
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      name: {type: string, required: true}
states:
  note: {field: status, initial: draft, transitions: {publish: {from: [draft], to: published}}}
endpoints:
  note: [create, read, update, replace, delete, list, publish]
  tag: [create, read, list]
authentication:
${authentication}
events: {none: No events.}
errors:
  shape: problem
  catalog:
    unauthenticated: {status: 401, title: Unauthenticated}
    forbidden: {status: 403, title: Forbidden}
    not-found: {status: 404, title: Not found}
limits: {none: No limits.}
versioning: {none: One version.}
`;
}

const SCOPES = `  scopes: {notes:read: Read notes., notes:write: Write notes., tags: Keep tags.}
  default: {scopes: [notes:read]}
  public: [tag.read, tag.list]
  require: {note.create: [notes:write], note.update: [notes:write], note.replace: [notes:write], note.delete: [notes:write], note.publish: [notes:write], tag.create: [tags]}`;

interface App {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly spec: Spec;
  /** Moves the app's clock. */
  advance(ms: number): void;
}

async function open(t: TestContext, spec: Spec): Promise<App> {
  const store = await openSqliteStore({ path: ':memory:' });
  let now = Date.UTC(2026, 10, 21);
  const app = await createApp({ spec, store, now: () => now });
  t.after(async () => {
    await app.close();
    await store.close();
  });
  return { app, store, spec, advance: (ms) => (now += ms) };
}

async function issue(a: App, scheme: string, scopes: string[], principal?: string) {
  const r = await issueCredential(a.spec, a.store.credentials, { scheme, scopes, ...(principal ? { principal } : {}) });
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.issued;
}

function assertProblem(r: Answer, status: number, code: string): void {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.code, code);
  assert.equal(r.body.status, status);
  assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
}

describe('API key in a header', () => {
  const spec = mustLoad(notesSpec(`  schemes: {key: {type: apiKey, in: header, name: X-Notes-Key}}\n${SCOPES}`));

  test('no key: 401 in the declared shape with a challenge naming the header; a valid key with the scopes: served', async (t) => {
    const a = await open(t, spec);
    const none = await send(a.app, 'GET', '/notes');
    assertProblem(none, 401, 'unauthenticated');
    assert.equal(none.headers['www-authenticate'], 'ApiKey realm="Notes", header="X-Notes-Key"');
    assert.match(none.body.detail, /X-Notes-Key/);
    const key = await issue(a, 'key', ['notes:read', 'notes:write']);
    assert.match(key.headers['x-notes-key'], /^sk[0-9a-f]{20}_[A-Za-z0-9_-]{43}$/);
    const created = await send(a.app, 'POST', '/notes', { text: 'hello' }, key.headers);
    assert.equal(created.status, 201);
    assert.equal((await send(a.app, 'GET', '/notes', undefined, key.headers)).body.items.length, 1);
  });

  test('a wrong secret, an unknown id, a garbled key and a repeated header are 401, and say nothing of which part was wrong', async (t) => {
    const a = await open(t, spec);
    const key = (await issue(a, 'key', ['notes:read'])).headers['x-notes-key'];
    const [id] = key.split('_');
    for (const bad of [`${id}_${'A'.repeat(43)}`, `sk0000000000000000000_${key.slice(key.indexOf('_') + 1)}`, 'not-a-key']) {
      const r = await send(a.app, 'GET', '/notes', undefined, { 'x-notes-key': bad });
      assertProblem(r, 401, 'unauthenticated');
      assert.ok(r.headers['www-authenticate']);
    }
    const wrong = await send(a.app, 'GET', '/notes', undefined, { 'x-notes-key': `${id}_${'A'.repeat(43)}` });
    const unknown = await send(a.app, 'GET', '/notes', undefined, { 'x-notes-key': `sk0000000000000000000_${key.slice(key.indexOf('_') + 1)}` });
    assert.equal(wrong.body.detail, unknown.body.detail);
    const twice = await a.app.inject({ method: 'GET', url: '/notes', headers: { 'x-notes-key': [key, key] } as never });
    // Node joins a repeated header into one value (`a, b`), which is no key of ours.
    assert.equal(twice.statusCode, 401);
  });

  test('a key without the scope an endpoint needs: 403 naming the missing scopes; default scopes apply to unnamed endpoints', async (t) => {
    const a = await open(t, spec);
    const reader = (await issue(a, 'key', ['notes:read'])).headers;
    const r = await send(a.app, 'POST', '/notes', { text: 'x' }, reader);
    assertProblem(r, 403, 'forbidden');
    assert.deepEqual(r.body.missingScopes, ['notes:write']);
    assert.equal(r.headers['www-authenticate'], undefined, 'no bearer scheme, no insufficient_scope challenge');
    const tagger = (await issue(a, 'key', ['tags'])).headers;
    assertProblem(await send(a.app, 'GET', '/notes', undefined, tagger), 403, 'forbidden');
    assert.equal((await send(a.app, 'POST', '/tags', { name: 'x' }, tagger)).status, 201);
  });

  test('public endpoints need nothing; a bad key sent to one is still refused', async (t) => {
    const a = await open(t, spec);
    assert.equal((await send(a.app, 'GET', '/tags')).status, 200);
    assertProblem(await send(a.app, 'GET', '/tags', undefined, { 'x-notes-key': 'sk00_nope' }), 401, 'unauthenticated');
  });

  test('a revoked key stops working within a second; revoking twice is refused', async (t) => {
    const a = await open(t, spec);
    const key = await issue(a, 'key', ['notes:read']);
    assert.equal((await send(a.app, 'GET', '/notes', undefined, key.headers)).status, 200);
    const revoked = await revokeCredential(a.store.credentials, key.credential.id);
    assert.equal(revoked.ok, true);
    a.advance(1_001);
    const r = await send(a.app, 'GET', '/notes', undefined, key.headers);
    assertProblem(r, 401, 'unauthenticated');
    assert.match(r.body.detail, /revoked/);
    assert.equal((await revokeCredential(a.store.credentials, key.credential.id)).ok, false);
  });

  test('only a hash of the secret is stored, compared in constant time', async (t) => {
    const a = await open(t, spec);
    const key = await issue(a, 'key', ['notes:read']);
    const stored = await a.store.credentials.get(key.credential.id);
    assert.ok(stored);
    assert.equal(stored.secretHash, hashSecret(key.secret));
    assert.ok(!JSON.stringify(stored).includes(key.secret));
    assert.equal(secretMatches(key.secret, stored.secretHash), true);
    assert.equal(secretMatches(`${key.secret}x`, stored.secretHash), false);
  });

  test('credentials are issued only for declared schemes and scopes, with did-you-mean', async (t) => {
    const a = await open(t, spec);
    const scope = await issueCredential(spec, a.store.credentials, { scheme: 'key', scopes: ['notes:wirte'] });
    assert.equal(scope.ok, false);
    assert.match(scope.ok ? '' : scope.message, /no scope 'notes:wirte'.*did you mean 'notes:write'/i);
    const scheme = await issueCredential(spec, a.store.credentials, { scheme: 'keys', scopes: [] });
    assert.match(scheme.ok ? '' : scheme.message, /no scheme 'keys'.*did you mean 'key'/i);
    assert.deepEqual(await a.store.credentials.list(), []);
  });
});

describe('other schemes', () => {
  test('API key in a query parameter', async (t) => {
    const a = await open(t, mustLoad(notesSpec(`  schemes: {key: {type: apiKey, in: query, name: key}}\n${SCOPES}`)));
    const key = await issue(a, 'key', ['notes:read']);
    assert.match(key.usage[0], /^\?key=sk/);
    const value = key.usage[0].slice('?key='.length);
    assert.equal((await send(a.app, 'GET', `/notes?key=${value}`)).status, 200);
    const none = await send(a.app, 'GET', '/notes');
    assertProblem(none, 401, 'unauthenticated');
    assert.equal(none.headers['www-authenticate'], 'ApiKey realm="Notes", query="key"');
  });

  test('HTTP basic (RFC 7617): user id and password; a wrong password is 401 with a Basic challenge', async (t) => {
    const a = await open(t, mustLoad(notesSpec(`  schemes: {login: {type: basic}}\n${SCOPES}`)));
    const login = await issue(a, 'login', ['notes:read']);
    assert.equal((await send(a.app, 'GET', '/notes', undefined, login.headers)).status, 200);
    const wrong = `Basic ${Buffer.from(`${login.credential.id}:wrong`).toString('base64')}`;
    const r = await send(a.app, 'GET', '/notes', undefined, { authorization: wrong });
    assertProblem(r, 401, 'unauthenticated');
    assert.equal(r.headers['www-authenticate'], 'Basic realm="Notes", charset="UTF-8"');
    assertProblem(await send(a.app, 'GET', '/notes', undefined, { authorization: 'Basic' }), 401, 'unauthenticated');
  });

  test('opaque bearer tokens issued by the service; insufficient scope answers with the RFC 6750 challenge', async (t) => {
    const a = await open(t, mustLoad(notesSpec(`  schemes: {token: {type: bearer, tokens: opaque}}\n${SCOPES}`)));
    const token = await issue(a, 'token', ['notes:read']);
    assert.match(token.headers.authorization, /^Bearer st[0-9a-f]{20}_/);
    assert.equal((await send(a.app, 'GET', '/notes', undefined, token.headers)).status, 200);
    const bad = await send(a.app, 'GET', '/notes', undefined, { authorization: 'Bearer st00_nope' });
    assertProblem(bad, 401, 'unauthenticated');
    assert.equal(bad.headers['www-authenticate'], 'Bearer realm="Notes", error="invalid_token"');
    const forbidden = await send(a.app, 'POST', '/notes', { text: 'x' }, token.headers);
    assertProblem(forbidden, 403, 'forbidden');
    assert.equal(forbidden.headers['www-authenticate'], 'Bearer realm="Notes", error="insufficient_scope", scope="notes:write"');
  });
});

describe('OAuth 2.0 client credentials (RFC 6749 §4.4)', () => {
  const spec = mustLoad(notesSpec(`  schemes: {partner: {type: oauth2, flow: clientCredentials, tokenPath: /oauth/token, tokenTtl: 10m}}\n${SCOPES}`));
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  async function token(a: App, body: string, headers: Record<string, string> = {}) {
    const r = await a.app.inject({ method: 'POST', url: '/oauth/token', headers: { ...form, ...headers }, payload: body });
    return { status: r.statusCode, headers: r.headers, body: r.json() };
  }

  test('a client exchanges its id and secret (Basic or body) for a bearer token that works until it expires', async (t) => {
    const a = await open(t, spec);
    const client = await issue(a, 'partner', ['notes:read', 'notes:write']);
    const id = client.credential.id;
    const basic = { authorization: `Basic ${Buffer.from(`${id}:${client.secret}`).toString('base64')}` };
    const r = await token(a, 'grant_type=client_credentials', basic);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.body.expires_in, 600);
    assert.equal(r.body.scope, 'notes:read notes:write');
    assert.equal(r.headers['cache-control'], 'no-store');
    const bearer = { authorization: `Bearer ${r.body.access_token}` };
    assert.equal((await send(a.app, 'POST', '/notes', { text: 'x' }, bearer)).status, 201);
    const narrow = await token(a, `grant_type=client_credentials&scope=notes:read&client_id=${id}&client_secret=${client.secret}`);
    assert.equal(narrow.body.scope, 'notes:read');
    assertProblem(await send(a.app, 'POST', '/notes', { text: 'x' }, { authorization: `Bearer ${narrow.body.access_token}` }), 403, 'forbidden');
    a.advance(600_001);
    const expired = await send(a.app, 'GET', '/notes', undefined, bearer);
    assertProblem(expired, 401, 'unauthenticated');
    assert.match(expired.body.detail, /expired/);
  });

  test('the client secret itself is not a bearer token', async (t) => {
    const a = await open(t, spec);
    const client = await issue(a, 'partner', ['notes:read']);
    const r = await send(a.app, 'GET', '/notes', undefined, { authorization: `Bearer ${client.credential.id}_${client.secret}` });
    assertProblem(r, 401, 'unauthenticated');
  });

  test('refusals in the RFC 6749 §5.2 shape: bad client, bad grant, scope beyond the client, wrong media type, repeated parameters', async (t) => {
    const a = await open(t, spec);
    const client = await issue(a, 'partner', ['notes:read']);
    const creds = `client_id=${client.credential.id}&client_secret=${client.secret}`;
    const badClient = await token(a, `grant_type=client_credentials&client_id=${client.credential.id}&client_secret=nope`);
    assert.equal(badClient.status, 401);
    assert.equal(badClient.body.error, 'invalid_client');
    assert.ok(badClient.headers['www-authenticate']);
    assert.equal((await token(a, `grant_type=password&${creds}`)).body.error, 'unsupported_grant_type');
    const beyond = await token(a, `grant_type=client_credentials&scope=notes:write&${creds}`);
    assert.equal(beyond.status, 400);
    assert.equal(beyond.body.error, 'invalid_scope');
    assert.equal((await token(a, `grant_type=client_credentials&grant_type=client_credentials&${creds}`)).body.error, 'invalid_request');
    const json = await a.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":"client_credentials"}' });
    assert.equal(json.statusCode, 400);
    assert.equal(json.json().error, 'invalid_request');
    assert.equal((await a.store.credentials.list()).length, 1, 'no token was issued by a refused request');
  });

  test('revoking the client revokes the tokens issued to it', async (t) => {
    const a = await open(t, spec);
    const client = await issue(a, 'partner', ['notes:read']);
    const r = await token(a, `grant_type=client_credentials&client_id=${client.credential.id}&client_secret=${client.secret}`);
    const bearer = { authorization: `Bearer ${r.body.access_token}` };
    assert.equal((await send(a.app, 'GET', '/notes', undefined, bearer)).status, 200);
    await revokeCredential(a.store.credentials, client.credential.id);
    a.advance(1_001);
    assertProblem(await send(a.app, 'GET', '/notes', undefined, bearer), 401, 'unauthenticated');
  });
});

describe('JWT bearer tokens (RFC 7519), verified with jose', () => {
  async function keys() {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const sign = (claims: Record<string, unknown>, over: { exp?: number | string; aud?: string; iss?: string } = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(over.iss ?? 'https://id.example')
        .setAudience(over.aud ?? 'https://notes.example')
        .setIssuedAt(Math.floor(Date.UTC(2026, 10, 21) / 1000))
        .setExpirationTime(over.exp ?? Math.floor(Date.UTC(2026, 10, 21) / 1000) + 3600)
        .sign(privateKey);
    return { jwks: { keys: [jwk] }, sign };
  }

  function jwtScheme(where: string): string {
    return `  schemes: {member: {type: bearer, tokens: jwt, jwt: {issuer: "https://id.example", audience: "https://notes.example", algorithms: [ES256], ${where}}}}\n${SCOPES}`;
  }

  async function fromFile(t: TestContext, text: string, jwks: unknown): Promise<Spec> {
    const dir = mkdtempSync(join(tmpdir(), 'svcspec-jwt-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'keys.json'), JSON.stringify(jwks));
    writeFileSync(join(dir, 'notes.yaml'), text);
    const r = await loadSpec(join(dir, 'notes.yaml'));
    assert.ok(r.value);
    return r.value;
  }

  test('keys from a JWKS file beside the spec: sub is the principal, scope the scopes; iss, aud, exp and alg are enforced', async (t) => {
    const { jwks, sign } = await keys();
    const a = await open(t, await fromFile(t, notesSpec(jwtScheme('jwksFile: keys.json')), jwks));
    const ann = { authorization: `Bearer ${await sign({ sub: 'ann', scope: 'notes:read notes:write' })}` };
    const created = await send(a.app, 'POST', '/notes', { text: 'mine' }, ann);
    assert.equal(created.status, 201);
    assert.equal((await a.store.get('note', created.body.id))?.owner, 'ann');
    const cases: [string, string, RegExp][] = [
      ['audience', await sign({ sub: 'ann', scope: 'notes:read' }, { aud: 'https://other.example' }), /^(?!.*check_failed).*the token's aud claim does not hold a value this service accepts/],
      ['issuer', await sign({ sub: 'ann', scope: 'notes:read' }, { iss: 'https://evil.example' }), /^(?!.*check_failed).*the token's iss claim does not hold a value this service accepts/],
      ['expired', await sign({ sub: 'ann', scope: 'notes:read' }, { exp: Math.floor(Date.UTC(2026, 10, 20) / 1000) }), /expired/],
      ['no subject', await sign({ scope: 'notes:read' }), /subject/],
      ['garbage', 'a.b.c', /well-formed|refused/],
    ];
    for (const [what, jwt, reason] of cases) {
      const r = await send(a.app, 'GET', '/notes', undefined, { authorization: `Bearer ${jwt}` });
      assertProblem(r, 401, 'unauthenticated');
      assert.match(r.body.detail, reason, what);
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="Notes", error="invalid_token"', what);
    }
    // An HMAC token signed with the public key's bytes (the classic algorithm confusion) is refused.
    const hs = await new SignJWT({ sub: 'ann', scope: 'notes:read' }).setProtectedHeader({ alg: 'HS256' }).setIssuer('https://id.example').setAudience('https://notes.example').setExpirationTime('1h').sign(new TextEncoder().encode(JSON.stringify(jwks)));
    assertProblem(await send(a.app, 'GET', '/notes', undefined, { authorization: `Bearer ${hs}` }), 401, 'unauthenticated');
    const reader = { authorization: `Bearer ${await sign({ sub: 'bob', scope: ['notes:read'] })}` };
    assertProblem(await send(a.app, 'POST', '/notes', { text: 'x' }, reader), 403, 'forbidden');
  });

  test('keys fetched from a JWKS URL over real HTTP', async (t) => {
    const { jwks, sign } = await keys();
    let fetched = 0;
    const idp = createServer((_req, res) => {
      fetched++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    t.after(() => idp.close());
    const { port } = idp.address() as { port: number };
    const a = await open(t, mustLoad(notesSpec(jwtScheme(`jwksUrl: "http://127.0.0.1:${port}/jwks.json"`))));
    const base = await a.app.listen({ port: 0, host: '127.0.0.1' });
    const jwt = await sign({ sub: 'ann', scope: 'notes:read notes:write' });
    const r = await fetch(`${base}/notes`, { method: 'POST', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    assert.equal(r.status, 201);
    assert.equal(fetched, 1);
    const anonymous = await fetch(`${base}/notes`);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer realm="Notes"$/);
  });

  test('a JWKS that cannot be fetched is 503 unavailable whatever the cause, naming no URL; a failed fetch is not repeated for 10 s; known keys go on verifying', async (t) => {
    const { jwks, sign } = await keys();
    // The identity provider: first down (503), then unreachable (closed), then up.
    let mode: 'down' | 'up' = 'down';
    let fetched = 0;
    const idp = createServer((_req, res) => {
      fetched++;
      if (mode === 'down') res.writeHead(503).end('maintenance');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    t.after(() => idp.close());
    const { port } = idp.address() as { port: number };
    const lines: string[] = [];
    const logger = { level: 'info', stream: { write: (l: string) => void lines.push(l) } };
    const store = await openSqliteStore({ path: ':memory:' });
    const app = await createApp({ spec: mustLoad(notesSpec(jwtScheme(`jwksUrl: "http://127.0.0.1:${port}/jwks.json"`))), store, now: () => Date.UTC(2026, 10, 21), logger });
    t.after(async () => { await app.close(); await store.close(); });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const jwt = await sign({ sub: 'ann', scope: 'notes:read' });
    const get = () => fetch(`${base}/notes`, { headers: { authorization: `Bearer ${jwt}` } });
    for (let i = 0; i < 5; i++) {
      const r = await get();
      assert.equal(r.status, 503, `request ${i}`);
      assert.equal(r.headers.get('retry-after'), '10');
      const body = (await r.json()) as Record<string, unknown>;
      assert.equal(body.code, 'unavailable');
      assert.doesNotMatch(JSON.stringify(body), /127\.0\.0\.1|jwks\.json/, 'no internal URL in the body');
    }
    assert.equal(fetched, 1, 'the failed fetch is remembered: one fetch for five requests');
    const logged = lines.filter((l) => l.includes('credentials cannot be verified'));
    assert.equal(logged.length, 1, 'logged once per failed fetch');
    assert.match(logged[0], /jwks\.json/, 'the log names the URL');

    // Unreachable: a service with a port nobody listens on answers the same way.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const b = await open(t, mustLoad(notesSpec(jwtScheme(`jwksUrl: "http://127.0.0.1:${deadPort}/jwks.json"`))));
    const unreachable = await send(b.app, 'GET', '/notes', undefined, { authorization: `Bearer ${jwt}` });
    assertProblem(unreachable, 503, 'unavailable');
    assert.doesNotMatch(JSON.stringify(unreachable.body), /127\.0\.0\.1/);

    // Up: keys are fetched and verify. The provider failing afterwards changes nothing while
    // jose's copy is fresh (a new token, so not the verified-token cache).
    mode = 'up';
    const c = await open(t, mustLoad(notesSpec(jwtScheme(`jwksUrl: "http://127.0.0.1:${port}/jwks.json"`))));
    assert.equal((await send(c.app, 'GET', '/notes', undefined, { authorization: `Bearer ${jwt}` })).status, 200);
    mode = 'down';
    const other = await sign({ sub: 'bob', scope: 'notes:read' });
    assert.equal((await send(c.app, 'GET', '/notes', undefined, { authorization: `Bearer ${other}` })).status, 200);
  });

  test('a JWKS file that is missing stops the service from starting, with the file named', async () => {
    const spec = mustLoad(notesSpec(jwtScheme('jwksFile: no-such-keys.json')));
    const store = await openSqliteStore({ path: ':memory:' });
    await assert.rejects(createApp({ spec, store }), /no-such-keys\.json cannot be read/);
    await store.close();
  });
});

describe('ownership: records belong to the principal that created them', () => {
  const spec = mustLoad(notesSpec(`  schemes: {key: {type: apiKey, in: header, name: X-Notes-Key}}\n${SCOPES}`));

  test("another principal gets 404 on read, update, replace, delete and transitions, and never lists them", async (t) => {
    const a = await open(t, spec);
    const ann = (await issue(a, 'key', ['notes:read', 'notes:write'], 'ann')).headers;
    const ann2 = (await issue(a, 'key', ['notes:read'], 'ann')).headers;
    const bob = (await issue(a, 'key', ['notes:read', 'notes:write'], 'bob')).headers;
    const note = await send(a.app, 'POST', '/notes', { text: "ann's" }, ann);
    assert.equal(note.status, 201);
    const url = `/notes/${note.body.id}`;
    assertProblem(await send(a.app, 'GET', url, undefined, bob), 404, 'not-found');
    assertProblem(await send(a.app, 'PATCH', url, { text: 'bob was here' }, bob), 404, 'not-found');
    assertProblem(await send(a.app, 'PUT', url, { text: 'bob was here' }, bob), 404, 'not-found');
    assertProblem(await send(a.app, 'POST', `${url}/publish`, undefined, bob), 404, 'not-found');
    assertProblem(await send(a.app, 'DELETE', url, undefined, bob), 404, 'not-found');
    assertProblem(await send(a.app, 'PATCH', url, { text: 'x' }, { ...bob, 'if-match': note.headers.etag as string }), 404, 'not-found');
    assert.deepEqual((await send(a.app, 'GET', '/notes', undefined, bob)).body.items, []);
    await send(a.app, 'POST', '/notes', { text: "bob's" }, bob);
    // The same principal through another credential sees its own records.
    const mine = await send(a.app, 'GET', '/notes', undefined, ann2);
    assert.deepEqual(mine.body.items.map((n: { text: string }) => n.text), ["ann's"]);
    const stored = await a.store.get('note', note.body.id);
    assert.equal(stored?.data.text, "ann's");
    assert.equal(stored?.version, 1, 'nothing bob sent was written');
    assert.equal((await send(a.app, 'POST', `${url}/publish`, undefined, ann)).status, 200);
    assert.equal((await send(a.app, 'DELETE', url, undefined, ann)).status, 204);
  });

  test('idempotency keys are per principal: the same key from another principal is a new request', async (t) => {
    const a = await open(t, spec);
    const ann = (await issue(a, 'key', ['notes:write', 'notes:read'], 'ann')).headers;
    const bob = (await issue(a, 'key', ['notes:write', 'notes:read'], 'bob')).headers;
    const first = await send(a.app, 'POST', '/notes', { text: 'same' }, { ...ann, 'idempotency-key': 'k1' });
    const other = await send(a.app, 'POST', '/notes', { text: 'same' }, { ...bob, 'idempotency-key': 'k1' });
    assert.equal(first.status, 201);
    assert.equal(other.status, 201);
    assert.notEqual(other.body.id, first.body.id);
    assert.equal(other.headers['idempotency-replayed'], undefined);
  });
});
