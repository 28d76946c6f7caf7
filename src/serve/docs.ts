/**
 * What the service serves about itself, beside the spec's endpoints. None of these routes
 * is an endpoint of the spec, so no version, credential or rate limit applies to them.
 *
 *   GET /openapi.json    the OpenAPI 3.1 export of the default version (src/export)
 *   GET /asyncapi.json   the AsyncAPI 3.0 export
 *   GET /docs            the API reference: a small page on which Scalar (@scalar/api-reference,
 *                        a maintained renderer of OpenAPI documents) renders /openapi.json
 *   GET /docs/scalar.js  Scalar's browser bundle: no CDN, so the page works without the internet
 *                        and shows the Scalar svcspec ships. An installed svcspec carries that one
 *                        file in vendor/scalar/ (scripts/vendor.ts, at pack time; @scalar/api-reference
 *                        is a dev dependency, its whole Vue application is not installed); a
 *                        checkout reads it from the dev dependency.
 *   GET /docs/spec       the spec's own document (src/doc): all nine parts, the gaps included,
 *                        which an OpenAPI document cannot hold
 *
 * A path the spec uses itself is never shadowed: the exports are left out one by one, the
 * /docs routes all together when the spec uses /docs or a path under it. When the spec
 * takes /openapi.json, the reference reads the export at /docs/openapi.json instead.
 * Everything is made on first request and kept; the exporters and the document renderer
 * (about 60 modules) are loaded then too, not at start-up (issue #20).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { packageFile } from '../spec/package-files.ts';
import type { Spec } from '../spec/model.ts';

export const DOCS_PATH = '/docs';
export const SCALAR_PATH = `${DOCS_PATH}/scalar.js`;
export const SPEC_DOCUMENT_PATH = `${DOCS_PATH}/spec`;

const SCALAR_MODULE = '@scalar/api-reference/browser/standalone.js';
/** The package's vendor/ folder (scripts/vendor.ts fills it at pack time). */
const SCALAR_VENDORED = 'vendor/scalar/standalone.js';
const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

export function serveDocument(app: FastifyInstance, spec: Spec): void {
  const taken = (path: string) => spec.endpoints.some((e) => e.path === path);
  const exporters = once(() => import('../export/index.ts'));
  const openApiDocument = once(async () => (await exporters()).toOpenApi(spec).document);
  const openApi = once(async () => JSON.stringify(await openApiDocument()));
  const asyncApi = once(async () => JSON.stringify((await exporters()).toAsyncApi(spec).document));
  const exports = [['/openapi.json', openApi], ['/asyncapi.json', asyncApi]] as const;
  for (const [path, json] of exports) {
    if (!taken(path)) app.get(path, async (_request, reply) => reply.type(JSON_TYPE).send(await json()));
  }
  if (spec.endpoints.some((e) => e.path === DOCS_PATH || e.path.startsWith(`${DOCS_PATH}/`))) return;

  const specDocument = once(async () => (await import('../doc/index.ts')).renderDocument(spec, { format: 'html' }));
  app.get(SPEC_DOCUMENT_PATH, async (_request, reply) => reply.type(HTML_TYPE).send(await specDocument()));

  const bundle = scalarBundle();
  if (!bundle) {
    // A broken install should not stop the service: the spec's document stands in, and the log says why.
    app.log.warn(`svcspec: Scalar's bundle (vendor/scalar/standalone.js in the package, ${SCALAR_MODULE} in a checkout) is missing, so ${DOCS_PATH} serves the spec's document instead of the API reference; reinstall svcspec's dependencies.`);
    app.get(DOCS_PATH, async (_request, reply) => reply.type(HTML_TYPE).send(await specDocument()));
    return;
  }
  let openApiUrl = 'openapi.json';
  if (taken('/openapi.json')) {
    openApiUrl = 'docs/openapi.json';
    app.get(`${DOCS_PATH}/openapi.json`, async (_request, reply) => reply.type(JSON_TYPE).send(await openApi()));
  }
  let page: Promise<string> | undefined;
  app.get(DOCS_PATH, async (_request, reply) => {
    page ??= bundle().then(async (b) => referencePage(spec, await openApiDocument(), { script: `docs/scalar.js?v=${b.hash}`, openApi: openApiUrl }));
    return reply.type(HTML_TYPE).header('cache-control', 'no-cache').send(await page);
  });
  app.get(SCALAR_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const b = await bundle();
    // The page names the bundle by its hash (?v=), so a copy can be kept for good (RFC 8246).
    void reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').header('etag', `"${b.hash}"`).header('vary', 'accept-encoding');
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(await b.gzipped());
    return reply.send(b.raw);
  });
}

interface Bundle {
  readonly raw: Buffer;
  /** The first 16 hex digits of its SHA-256. */
  readonly hash: string;
  gzipped(): Promise<Buffer>;
}

/** Scalar's standalone browser bundle, read once on first use; undefined when the package is not installed. */
function scalarBundle(): (() => Promise<Bundle>) | undefined {
  let file = fileURLToPath(packageFile(SCALAR_VENDORED));
  if (!existsSync(file)) {
    try {
      file = fileURLToPath(import.meta.resolve(SCALAR_MODULE));
    } catch {
      return undefined;
    }
  }
  return once(async () => {
    const raw = await readFile(file);
    const hash = createHash('sha256').update(raw).digest('hex').slice(0, 16);
    // 3.5 MB of JavaScript is about 1 MB gzipped; compressed once, on the first request that accepts it.
    const gzipped = once(() => promisify(gzip)(raw));
    return { raw, hash, gzipped };
  });
}

/**
 * The API reference page: Scalar's bundle and its configuration. URLs are relative to
 * /docs, so the page also works behind a proxy that serves the service under a prefix.
 * The export's servers are `{base_url}` and, for path-selected versions, `{base_url}/v2`:
 * here {base_url} is known, it is where the page came from, so "try it" calls this service.
 * Nothing is fetched from elsewhere: no web fonts, no telemetry, no AI agent, no developer toolbar.
 */
function referencePage(spec: Spec, openApi: Record<string, unknown>, urls: { script: string; openApi: string }): string {
  const title = `${spec.title ?? spec.purpose.name ?? 'API'}: API reference`;
  const servers = ((openApi.servers ?? []) as { url: string }[])
    .filter((s) => s.url.startsWith('{base_url}'))
    .map((s) => s.url.slice('{base_url}'.length))
    .map((under) => ({ under, description: `This service${under ? `, under ${under}` : ''}` }));
  const config = {
    url: urls.openApi,
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    // Its AI agent talks to scalar.com (and is on by default for localhost): not from a service's docs.
    agent: { disabled: true },
    metaData: { title },
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="alternate" type="application/openapi+json" href="${escapeHtml(urls.openApi)}" title="OpenAPI 3.1">
<link rel="alternate" type="text/html" href="docs/spec" title="The spec's document">
</head>
<body>
<noscript><p>This API reference needs JavaScript. Read <a href="docs/spec">the spec's document</a> or <a href="${escapeHtml(urls.openApi)}">the OpenAPI document</a>.</p></noscript>
<div id="app"></div>
<script src="${escapeHtml(urls.script)}"></script>
<script>
(function () {
  var base = new URL('.', location.href).href.replace(/[/]$/, '');
  var config = ${scriptJson(config)};
  var servers = ${scriptJson(servers)};
  if (servers.length) config.servers = servers.map(function (s) { return { url: base + s.under, description: s.description }; });
  Scalar.createApiReference('#app', config);
})();
</script>
</body>
</html>
`;
}

/** JSON that cannot end the script element it sits in (HTML §4.12.1.3: no `</script`, no `<!--`). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
