/**
 * A bearer scheme under another word than Bearer (`prefix: Token`: Django REST framework's and
 * RealWorld's `Authorization: Token <token>`, RFC 9110 §11.4): serve reads it, and only it;
 * its challenge names it; `credentials create` issues it; export names the HTTP scheme; the
 * import reads RealWorld's "API key in Authorization" as it.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { toOpenApi } from '../../src/export/index.ts';
import { importOpenApi } from '../../src/import/index.ts';
import { serve } from './support/open-app.ts';

const SPEC = `svcspec: 1
purpose: {name: Notes, summary: Keeps notes., users: [{name: writer, tasks: [write notes]}]}
resources:
  note:
    plural: notes
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, format: uuid, readOnly: true}
      text: {type: string, required: true}
states: {none: Notes have no life cycle.}
endpoints:
  note: [create, read, list]
authentication:
  obtain: An administrator issues tokens.
  schemes:
    token: {type: bearer, tokens: opaque, prefix: Token}
events: {none: No events.}
errors: {shape: problem, catalog: {unauthenticated: {status: 401, title: Authentication required}, validation-failed: {status: 422, title: Invalid}, not-found: {status: 404, title: Not found}}}
limits: {rate: {none: No limit.}}
versioning: {none: One version.}
`;

test('serve: a bearer scheme with prefix Token reads `Authorization: Token <token>`, and not Bearer; its challenge says Token', async (t) => {
  const { app, auth } = await serve(t, SPEC);
  assert.match(auth.authorization ?? '', /^Token \S+$/, 'credentials are issued under the word');
  const made = await app.inject({ method: 'POST', url: '/notes', payload: { text: 'hello' } });
  assert.equal(made.statusCode, 201, made.body);
  const asBearer = await app.inject({ method: 'GET', url: '/notes', headers: { authorization: (auth.authorization ?? '').replace(/^Token/, 'Bearer') } });
  assert.equal(asBearer.statusCode, 401);
  assert.match(String(asBearer.headers['www-authenticate']), /^Token realm="Notes"$/);
  const lower = await app.inject({ method: 'GET', url: '/notes', headers: { authorization: (auth.authorization ?? '').replace(/^Token/, 'token') } });
  assert.equal(lower.statusCode, 200, 'the word is compared without regard to case (RFC 9110 §11.1)');
});

test('export and import: the HTTP scheme is named Token; RealWorld\'s API key in Authorization, shown as `Token xxxxxx`, is read as that', async () => {
  const { mustLoad } = await import('../support/spec.ts');
  const doc = toOpenApi(mustLoad(SPEC)).document as { components: { securitySchemes: Record<string, { type: string; scheme: string }> } };
  assert.deepEqual([doc.components.securitySchemes.token?.type, doc.components.securitySchemes.token?.scheme], ['http', 'Token']);
  const r = await importOpenApi(fileURLToPath(new URL('../import/fixtures/real/realworld-conduit.yaml', import.meta.url)));
  assert.ok(r.value);
  const scheme = r.value.spec.authentication.schemes[0];
  assert.deepEqual(scheme && scheme.type === 'bearer' && [scheme.tokens, scheme.prefix], ['opaque', 'Token']);
  assert.ok(r.diagnostics.some((d) => d.code === 'import-auth-prefix' && d.location));
});
