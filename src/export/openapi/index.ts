/**
 * The OpenAPI 3.1.0 export: `toOpenApi(spec)` describes one version of the API (see
 * ../version.ts) as the reference service serves it. What OpenAPI cannot express is
 * returned as findings (../codes.ts), and said in prose where a description can hold it.
 *
 *   info          part 1 (title, summary, users and tasks as prose), the version described
 *   servers       `{base_url}`, a server variable; path-selected versions add their prefix
 *   tags          one per resource
 *   components    a schema per resource (its records, pages, request bodies), the error body,
 *                 the security schemes of part 5, shared headers and parameters
 *   paths         one operation per endpoint (./operations.ts), errors per ./errors.ts
 *
 * {base_url}: the spec never gives an address, so none is invented. The server variable's
 * default (OpenAPI requires one) is http://127.0.0.1:3000, where `svcspec serve` listens
 * unless told otherwise; a client replaces it with the service's real address.
 */
import { subscriptionPaths, SUBSCRIPTIONS_TAG } from './subscriptions.ts';
import type { Diagnostic } from '../../spec/diagnostics.ts';
import type { AuthScheme, Spec } from '../../spec/model.ts';
import { PART_BY_NAME, type PartName } from '../../spec/parts.ts';
import { formatDuration, formatSize } from '../../spec/units.ts';
import { svcspecExtensions } from '../../spec/conventions/extensions.ts';
import { deprecationHeaders } from '../../spec/conventions/deprecation.ts';
import { pageSettings } from '../../spec/conventions/pagination.ts';
import { conditionalPromise, idempotencyPromise } from '../../spec/conventions/promises.ts';
import { ratePolicyFields } from '../../spec/conventions/rate.ts';
import { EXPORT_CODES, finding, type ExportResult } from '../codes.ts';
import { schemaContext, type JsonSchema } from '../schema.ts';
import { exportVersion } from '../version.ts';
import type { Components, OpenApiContext, VersionParam } from './context.ts';
import { errorSchemas } from './errors.ts';
import { operationOf } from './operations.ts';

/** Where `svcspec serve` listens by default: the default of the {base_url} server variable. */
export const BASE_URL_DEFAULT = 'http://127.0.0.1:3000';

export interface ExportOptions {
  /** The version to describe (a live version's name); by default versioning.default, else the only or newest one. */
  readonly version?: string;
}

export function toOpenApi(spec: Spec, options: ExportOptions = {}): ExportResult {
  const ev = exportVersion(spec, options.version, 'OpenAPI');
  const findings: Diagnostic[] = [...ev.findings];
  const { version } = ev;
  const select = spec.versioning.select;
  const versionParam: VersionParam | undefined = version && (select?.by === 'header' || select?.by === 'query') ? { in: select.by, name: select.name } : undefined;
  const { shape, schemas } = errorSchemas(spec);
  const components: Components = { schemas: {}, parameters: {}, headers: {}, responses: {}, securitySchemes: {} };
  const resources = new Map(ev.resources.map((r) => [r.name, r]));
  const ctx: OpenApiContext = {
    spec,
    schema: schemaContext(spec, ev.resources),
    resources,
    machines: new Map(spec.states.map((m) => [m.resource, m])),
    ...(version ? { version } : {}),
    ...(ev.fallback !== undefined ? { fallback: ev.fallback } : {}),
    ...(versionParam ? { versionParam } : {}),
    someRetired: spec.versioning.versions.some((v) => v.status === 'retired'),
    deprecation: version ? deprecationHeaders(version) : {},
    policies: ratePolicyFields(spec),
    page: pageSettings(spec),
    pageIsDefault: spec.limits.pagination === undefined,
    errorShape: shape,
    components,
    findings,
    named: new Map(),
  };

  securitySchemes(ctx);
  sharedComponents(ctx);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const e of spec.endpoints) {
    const resource = resources.get(e.resource);
    if (!resource) continue; // check reports it; the service serves nothing there either
    const item = (paths[e.path] ??= {});
    const method = e.method.toLowerCase();
    if (!(method in item)) item[method] = operationOf(ctx, e, resource);
  }
  // Part 6's own routes, where clients subscribe through the API (./subscriptions.ts).
  const subscriptions = subscriptionPaths(ctx);
  for (const [path, item] of Object.entries(subscriptions)) paths[path] = { ...(paths[path] ?? {}), ...item };
  Object.assign(components.schemas, schemas);
  reportInexpressible(ctx);

  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: info(ctx),
    ...(version?.docs ? { externalDocs: { url: version.docs, description: `Documentation of version ${version.name}.` } } : {}),
    servers: servers(ctx),
    tags: [...ev.resources.map((r) => ({ name: r.name, ...(r.description !== undefined || r.owned ? { description: [r.description, r.owned ? 'Records belong to the principal that created them; other callers neither see nor change them.' : undefined].filter(Boolean).join(' ') } : {}) })), ...(Object.keys(subscriptions).length ? [SUBSCRIPTIONS_TAG] : [])],
    paths,
    components: pruned(components),
    // conventions/extensions.ts: every part in the format's words, all versions included, which
    // the document above describes only in part; `svcspec import` reads the spec back from them.
    ...svcspecExtensions(spec),
  };
  return { document, findings };
}

function pruned(c: Components): Record<string, unknown> {
  return Object.fromEntries(Object.entries(c).filter(([, v]) => Object.keys(v as object).length > 0));
}

function info(ctx: OpenApiContext): JsonSchema {
  const { spec, version } = ctx;
  const out: string[] = [];
  if (spec.purpose.summary) out.push(spec.purpose.summary.trim());
  if (spec.purpose.users.length) {
    out.push(`## Users\n\n${spec.purpose.users.map((u) => `- **${u.name}**${u.description ? `: ${u.description}` : ''}${u.tasks.length ? `\n${u.tasks.map((t) => `  - ${t}`).join('\n')}` : ''}`).join('\n')}`);
  }
  const notes: string[] = [];
  if (version) {
    const others = spec.versioning.versions.filter((v) => v !== version).map((v) => `${v.name} (${v.status})`);
    notes.push(`This document describes version ${version.name} (${version.status}${version.released ? `, released ${version.released}` : ''}${version.deprecated ? `, deprecated ${version.deprecated}` : ''}${version.sunset ? `, sunset ${version.sunset}` : ''})${others.length ? `; the other versions are ${others.join(', ')}, each in a document of its own` : ''}.`);
    const select = spec.versioning.select;
    if (select?.by === 'path') notes.push(`A version is selected by the path prefix \`${select.prefix}\`${ctx.fallback === version.name ? '; paths without a prefix are served in this version, the default' : ''}.`);
  }
  const { limits } = spec;
  if (limits.body) notes.push(`Request bodies may be at most ${formatSize(limits.body.maxBytes)}; larger ones are refused with 413.`);
  if (limits.none?.rate) notes.push(`Requests are not rate-limited: ${limits.none.rate.reason}`);
  if (limits.none?.timeouts) notes.push(`Requests have no time-out: ${limits.none.timeouts.reason}`);
  if (limits.timeouts) notes.push(`A request still unanswered after ${formatDuration(limits.timeouts.requestMs)} is answered ${limits.timeouts.status} and its work abandoned.`);
  notes.push('A method a path does not list is answered 405 with `Allow`; OPTIONS lists the methods.');
  out.push(`## Notes\n\n${notes.map((n) => `- ${n}`).join('\n')}`);
  return {
    title: spec.title ?? spec.purpose.name ?? spec.source.file.split(/[\\/]/).at(-1),
    ...(out.length ? { description: out.join('\n\n') } : {}),
    // No version declared: none is invented; the document says so.
    version: version?.name ?? 'unversioned',
  };
}

function servers(ctx: OpenApiContext): JsonSchema[] {
  // The variable's own description would be the place for this, but the OpenAPI 3.1 JSON
  // Schema that validators use (spec.openapis.org/oas/3.1/schema) spells that member
  // `descriptions` and refuses `description`: the server's description says it instead.
  const base = 'The spec gives no address: {base_url} defaults to where `svcspec serve` listens unless told otherwise; replace it with the service\'s address.';
  const variables = { base_url: { default: BASE_URL_DEFAULT } };
  const select = ctx.spec.versioning.select;
  if (ctx.version && select?.by === 'path') {
    const prefix = select.prefix.replace('{version}', ctx.version.name);
    const out: JsonSchema[] = [{ url: `{base_url}${prefix}`, description: `Version ${ctx.version.name}. ${base}`, variables }];
    if (ctx.fallback === ctx.version.name) out.push({ url: '{base_url}', description: `Without a prefix: the default version, ${ctx.version.name}. ${base}`, variables });
    return out;
  }
  return [{ url: '{base_url}', description: base, variables }];
}

// ---- part 5 ------------------------------------------------------------------------------

function securitySchemes(ctx: OpenApiContext): void {
  const { spec } = ctx;
  if (spec.parts.authentication.statement !== 'given') return;
  const auth = spec.authentication;
  const obtain = auth.obtain ? `How to obtain credentials: ${auth.obtain.trim()}` : undefined;
  for (const s of auth.schemes) {
    const prose = [s.description, ...schemeProse(ctx, s), obtain].filter(Boolean).join('\n\n');
    const base = prose ? { description: prose } : {};
    let scheme: JsonSchema;
    switch (s.type) {
      case 'apiKey':
        scheme = { type: 'apiKey', in: s.in, name: s.param, ...base };
        break;
      case 'basic':
        scheme = { type: 'http', scheme: 'basic', ...base };
        break;
      case 'bearer':
        // RFC 9110 §11.4: the auth-scheme name the Authorization header carries (`Token`, where the spec says so).
        scheme = { type: 'http', scheme: s.prefix === undefined ? 'bearer' : s.prefix, ...(s.tokens === 'jwt' ? { bearerFormat: 'JWT' } : {}), ...base };
        break;
      case 'oauth2':
        // OpenAPI 3.1 §4.3.1: a relative URL resolves against the server; the token endpoint is served at tokenPath under {base_url}.
        scheme = { type: 'oauth2', flows: { clientCredentials: { tokenUrl: s.tokenPath, scopes: Object.fromEntries(auth.scopes.map((x) => [x.name, x.description ?? x.name])) } }, ...base };
        break;
    }
    ctx.components.securitySchemes[s.name] = scheme;
  }
}

/** What a scheme says that OpenAPI has no field for, as sentences (and a finding). */
function schemeProse(ctx: OpenApiContext, s: AuthScheme): string[] {
  const out: string[] = [];
  const what: string[] = [];
  if (s.type === 'bearer' && s.jwt) {
    const j = s.jwt;
    out.push(`JWTs are verified (RFC 7519): algorithms ${j.algorithms.join(', ')}${j.issuer ? `; iss ${j.issuer}` : ''}${j.audience ? `; aud ${j.audience}` : ''}${j.jwksUrl ? `; keys from ${j.jwksUrl}` : ''}${j.jwksFile ? '; keys from a JWKS file of the service' : ''}; the scopes are in the \`${j.scopesClaim ?? 'scope'}\` claim; \`sub\` is the principal.`);
    what.push('how its JWTs are verified');
  }
  if (s.type === 'oauth2' && s.tokenTtlMs !== undefined) {
    out.push(`Access tokens are valid for ${formatDuration(s.tokenTtlMs)}.`);
    what.push('a token lifetime');
  }
  if (what.length) ctx.findings.push(finding(ctx.spec, EXPORT_CODES.authSchemeDetails, { what: what.join(' and '), scheme: s.name }, s.pointer));
  return out;
}

function sharedComponents(ctx: OpenApiContext): void {
  const { headers, parameters } = ctx.components;
  // The protocol promises in force (src/spec/conventions/promises.ts): stated, or the runtime default.
  const conditional = conditionalPromise(ctx.spec);
  if (conditional.value?.validators.includes('etag')) headers.ETag = { schema: { type: 'string' }, description: 'RFC 9110 §8.8.3: the strong entity tag of the record, the same while it is unchanged, for If-Match and If-None-Match.' };
  if (conditional.value?.validators.includes('last-modified')) headers.LastModified = { schema: { type: 'string' }, description: 'RFC 9110 §8.8.2: when the record last changed, an HTTP-date, for If-Unmodified-Since and If-Modified-Since.' };
  headers.Location = { schema: { type: 'string', format: 'uri-reference' }, description: 'RFC 9110 §10.2.2: the new record, relative to {base_url}.' };
  const idempotency = idempotencyPromise(ctx.spec);
  if (idempotency.value) {
    const { header, lifetimeMs, scope } = idempotency.value;
    headers.IdempotencyReplayed = { schema: { type: 'string', const: 'true' }, description: `Present when the response is the replay of an earlier request with the same ${header}.` };
    parameters.IdempotencyKey = {
      name: header, in: 'header', required: false,
      schema: { type: 'string', minLength: 1, maxLength: 257 },
      description: `draft-ietf-httpapi-idempotency-key-header: 1 to 255 visible ASCII characters, optionally in double quotes. The first successful response is replayed for the same request with the same key for ${formatDuration(lifetimeMs)}${idempotency.stated ? '' : ' (a runtime default: the spec states no lifetime)'}, keys being per ${scope === 'credential' ? 'credential' : 'client address'}; the same key with another body is refused (422).`,
    };
  }
  const vp = ctx.versionParam;
  if (vp && ctx.version) {
    const isDefault = ctx.fallback === ctx.version.name;
    parameters.ApiVersion = {
      name: vp.name, in: vp.in, required: !isDefault,
      schema: { type: 'string', const: ctx.version.name, ...(isDefault ? { default: ctx.version.name } : {}) },
      description: `The API version: ${ctx.version.name} in this document${isDefault ? ', the default when none is named' : ''}. Other versions (${ctx.spec.versioning.versions.filter((v) => v !== ctx.version).map((v) => `${v.name}, ${v.status}`).join('; ') || 'none'}) have documents of their own; an unknown one is refused with 400, a retired one with 410.`,
    };
  }
}

// ---- what OpenAPI cannot say ------------------------------------------------------------------

function reportInexpressible(ctx: OpenApiContext): void {
  const { spec, findings } = ctx;
  const gap = (part: PartName) => {
    const statement = spec.parts[part].statement;
    if (statement !== 'given') findings.push(finding(spec, EXPORT_CODES.partGap, { number: PART_BY_NAME[part].number, title: PART_BY_NAME[part].title, statement: statement === 'gap' ? 'not shown' : 'stated as none', format: 'OpenAPI' }, spec.parts[part].pointer));
  };
  gap('endpoints');
  if (spec.parts.errors.statement !== 'given' && spec.endpoints.length) findings.push(finding(spec, EXPORT_CODES.errorsDefault, { statement: spec.parts.errors.statement === 'gap' ? 'not shown' : 'stated as none', shape: 'RFC 9457 problem details' }, spec.parts.errors.pointer));
  if (spec.purpose.users.length) findings.push(finding(spec, EXPORT_CODES.purposeUsers, { format: 'OpenAPI' }, '/purpose/users'));
  if (spec.parts.authentication.statement === 'given' && spec.authentication.obtain) findings.push(finding(spec, EXPORT_CODES.authObtain, {}, '/authentication/obtain'));
  for (const r of spec.resources) if (r.owned && spec.endpoints.some((e) => e.resource === r.name)) findings.push(finding(spec, EXPORT_CODES.ownership, { resource: r.name }, r.pointer));
  const { limits } = spec;
  if (limits.body) findings.push(finding(spec, EXPORT_CODES.bodySize, { size: formatSize(limits.body.maxBytes) }, limits.body.pointer));
  if (limits.timeouts) findings.push(finding(spec, EXPORT_CODES.timeouts, { duration: formatDuration(limits.timeouts.requestMs), status: limits.timeouts.status }, limits.timeouts.pointer));
  const ev = spec.events;
  if (spec.parts.events.statement === 'given' && (ev.catalog.length || ev.webhooks || ev.stream)) {
    const what = [ev.catalog.length ? `${ev.catalog.length} event${ev.catalog.length === 1 ? '' : 's'}` : '', ev.webhooks ? 'webhooks' : '', ev.stream ? `the stream at ${ev.stream.path}` : ''].filter(Boolean).join(', ');
    findings.push(finding(spec, EXPORT_CODES.eventsElsewhere, { what }, spec.parts.events.pointer));
  }
}
