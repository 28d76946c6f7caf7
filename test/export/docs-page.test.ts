/**
 * The served API reference: GET /docs is a page on which Scalar (@scalar/api-reference)
 * renders the OpenAPI export, from a bundle the service serves itself. The routes are
 * checked through inject(); the page itself in headless Chromium against `svcspec serve`
 * on a loopback port: every operation of the export is on it, and nothing was fetched
 * from anywhere but the service.
 */
import { SUBSCRIPTION_ROUTES } from '../../src/spec/conventions/events.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { renderDocument } from '../../src/doc/index.ts';
import { toOpenApi } from '../../src/export/index.ts';
import { exampleSpec, serve, EXAMPLES } from '../serve/support/open-app.ts';
import { killAll, startServe } from '../support/child-server.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_SKIP: string | false = existsSync(CHROMIUM)
  ? false
  : `Chromium is not installed at ${CHROMIUM}: the API reference page is NOT checked in a browser (apt-get install -y chromium; .ci/run installs it)`;
if (CHROMIUM_SKIP) console.warn(`\n*** SKIPPED: ${CHROMIUM_SKIP} ***\n`);

const BUNDLE = fileURLToPath(import.meta.resolve('@scalar/api-reference/browser/standalone.js'));

test('docs: GET /docs is the Scalar page, pointing at the export and at the bundle the service serves', async (t) => {
  const spec = await exampleSpec('library.yaml');
  const { app } = await serve(t, spec, undefined, { anonymous: true });
  const page = await app.inject({ method: 'GET', url: '/docs' });
  assert.equal(page.statusCode, 200, 'no credentials needed, though every endpoint of the library needs some');
  assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
  const html = page.body;
  const script = /<script src="(docs\/scalar\.js\?v=([0-9a-f]{16}))"><\/script>/.exec(html);
  assert.ok(script, 'the bundle is loaded from the service, relative to /docs');
  assert.match(html, /var config = \{"url":"openapi\.json"/);
  assert.match(html, /Scalar\.createApiReference\('#app', config\)/);
  assert.match(html, /"withDefaultFonts":false,"telemetry":false/);
  assert.doesNotMatch(html, /(src|href)="https?:/, 'nothing from a CDN');
  assert.match(html, /<title>City Library Lending API: API reference<\/title>/);
  assert.match(html, /<a href="docs\/spec">the spec's document<\/a>/, 'without JavaScript, the way to the spec document');

  const raw = readFileSync(BUNDLE);
  const bundle = await app.inject({ method: 'GET', url: `/${script[1]}` });
  assert.equal(bundle.statusCode, 200);
  assert.match(String(bundle.headers['content-type']), /^text\/javascript/);
  assert.equal(bundle.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(bundle.headers.etag, `"${script[2]}"`);
  assert.ok(bundle.rawPayload.equals(raw), 'the package file as it is');
  const zipped = await app.inject({ method: 'GET', url: '/docs/scalar.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.equal(zipped.headers.vary, 'accept-encoding');
  assert.ok(zipped.rawPayload.length < raw.length / 2, `gzipped: ${zipped.rawPayload.length} of ${raw.length} bytes`);
  assert.ok(gunzipSync(zipped.rawPayload).equals(raw));

  const document = await app.inject({ method: 'GET', url: '/docs/spec' });
  assert.equal(document.statusCode, 200);
  assert.match(String(document.headers['content-type']), /^text\/html/);
  assert.equal(document.body, renderDocument(spec, { format: 'html' }), "the spec's own document moved to /docs/spec");
});

test('docs: a spec that uses a path under /docs keeps it; one that uses /openapi.json gets the export read from /docs/openapi.json', async (t) => {
  const under = await serve(t, `
svcspec: 1
purpose: { name: T, summary: T. }
resources:
  page:
    plural: pages
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
endpoints:
  page: { list: { path: /docs/pages } }
`);
  assert.equal((await under.app.inject({ method: 'GET', url: '/docs/pages' })).statusCode, 200);
  for (const url of ['/docs', '/docs/spec', '/docs/scalar.js']) assert.equal((await under.app.inject({ method: 'GET', url })).statusCode, 404, url);
  assert.equal((await under.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode, 200, 'the exports stay');

  const taken = await serve(t, `
svcspec: 1
purpose: { name: T, summary: T. }
resources:
  doc:
    plural: docs
    id: { field: id, assigned: uuid }
    fields:
      id: { type: string, format: uuid, readOnly: true }
endpoints:
  doc: { list: { path: /openapi.json } }
`);
  const page = await taken.app.inject({ method: 'GET', url: '/docs' });
  assert.match(page.body, /\{"url":"docs\/openapi\.json"/);
  const moved = await taken.app.inject({ method: 'GET', url: '/docs/openapi.json' });
  assert.deepEqual(moved.json(), toOpenApi(taken.spec).document);
  assert.deepEqual(Object.keys((await taken.app.inject({ method: 'GET', url: '/openapi.json' })).json()), ['items', 'next'], "the spec's own endpoint");
});

/** Every operation of the export, as `METHOD /path`. */
function operationsOf(document: Record<string, unknown>): string[] {
  const paths = document.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)).sort();
}

test('docs: in Chromium, Scalar renders every operation of the export, from the service alone', { skip: CHROMIUM_SKIP, timeout: 120_000 }, async (t) => {
  // SVCSPEC_KEEP_SCREENSHOTS=1 keeps them, to look at.
  const shots = mkdtempSync(join(tmpdir(), 'svcspec-docs-'));
  if (process.env.SVCSPEC_KEEP_SCREENSHOTS) console.log(`screenshots in ${shots}`);
  else t.after(() => rmSync(shots, { recursive: true, force: true }));
  let browser: Browser | undefined;
  t.after(async () => browser?.close());
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

  for (const name of ['library', 'helpdesk']) {
    await t.test(name, async () => {
      const spec = await exampleSpec(`${name}.yaml`);
      const expected = operationsOf(toOpenApi(spec).document);
      // One operation per endpoint, and the subscription API's where clients subscribe through it (src/spec/conventions/events.ts).
      const subscriptions = spec.events.webhooks?.subscriptions === 'api' && spec.events.webhooks.path ? SUBSCRIPTION_ROUTES.length : 0;
      assert.equal(expected.length, spec.endpoints.length + subscriptions, 'one operation per endpoint and per subscription route');
      const { child, url } = await startServe([join(EXAMPLES, `${name}.yaml`), '--port', '0', '--db', ':memory:', '--quiet']);
      const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
      try {
        const requested: string[] = [];
        const failures: string[] = [];
        page.on('request', (r) => requested.push(r.url()));
        page.on('requestfailed', (r) => failures.push(`${r.url()}: ${r.failure()?.errorText}`));
        page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
        const answer = await page.goto(`${url}/docs`);
        assert.equal(answer?.status(), 200);
        // Scalar lists each tag's operations (method and path) in a list labelled "<tag> endpoints".
        const listed = 'ul[aria-label$=" endpoints"] > li';
        await page.waitForFunction(`document.querySelectorAll(${JSON.stringify(listed)}).length >= ${expected.length}`, undefined, { timeout: 60_000 });
        const shown = (await page.locator(listed).allInnerTexts()).map((text) => {
          const m = /^\s*(get|put|post|patch|delete|head|options)\s*(\/\S*)\s*$/i.exec(text);
          assert.ok(m, `an operation reads METHOD /path: ${JSON.stringify(text)}`);
          return `${m[1].toUpperCase()} ${m[2]}`;
        }).sort();
        assert.deepEqual(shown, expected);
        assert.equal(await page.title(), `${spec.title}: API reference`);
        assert.ok((await page.locator('h1').allInnerTexts()).includes(spec.title as string), "the export's title as the page's heading");
        const shot = join(shots, `${name}.png`);
        await page.screenshot({ path: shot });
        assert.ok(statSync(shot).size > 30_000, `a screenshot of a rendered page, not a blank one (${statSync(shot).size} bytes)`);
        assert.deepEqual([...readFileSync(shot).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
        assert.deepEqual(failures, []);
        const elsewhere = requested.filter((u) => !u.startsWith(`${url}/`) && !u.startsWith('data:'));
        assert.deepEqual(elsewhere, [], 'no request left the service: no CDN, fonts, telemetry or AI');
        assert.ok(requested.includes(`${url}/openapi.json`), 'the export was read from the service');
      } finally {
        await page.close();
        await killAll([child]);
      }
    });
  }
});
