/** `svcspec import` as a real process: output to a file or stdout, findings on stderr, exit codes. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli, ROOT } from '../support/child-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-import-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const PETSTORE = join(ROOT, 'test/import/fixtures/petstore.yaml');
const FINDING = /^\S+:\d+:\d+: (error|warning|info): .+ \[[a-z0-9-]+\]$/;

test('cli: svcspec import writes the spec, prints its findings to stderr as export does, and check loads it', () => {
  const out = join(dir, 'specs', 'petstore.yaml');
  const r = cli(['import', PETSTORE, '-o', out, '--verbose']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.at(-1), `svcspec: wrote ${out}. Next: svcspec check ${out}`);
  for (const line of lines.slice(0, -1)) assert.match(line, FINDING);
  assert.ok(lines.some((l) => l.startsWith(`${PETSTORE}:`) && l.endsWith('[import-part-gap]') && l.includes('Part 3, States and transitions')));
  const text = readFileSync(out, 'utf8');
  assert.match(text, /^# Imported by 'svcspec import' from /);
  assert.match(text, /\nresources:\n {2}pet:\n {4}plural: pets\n/);
  // Every gap and partial part is reported by check, which --allow-gaps accepts: nothing is wrong, much is missing.
  const check = cli(['check', out, '--allow-gaps']);
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /0 errors, \d+ warnings?, 5 gaps/);
});

test('cli: svcspec import writes YAML to stdout, and JSON with --format json or a .json output', () => {
  const yaml = cli(['import', PETSTORE]);
  assert.equal(yaml.status, 0);
  assert.match(yaml.stdout, /\nsvcspec: 1\n/);
  const json = cli(['import', PETSTORE, '--format', 'json']);
  assert.equal(json.status, 0);
  assert.equal(JSON.parse(json.stdout).resources.pet.plural, 'pets');
  const out = join(dir, 'petstore.json');
  assert.equal(cli(['import', PETSTORE, '-o', out]).status, 0);
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')).states, {});
});

test('cli: svcspec import refuses what it cannot read with exit 2 and a plain message, never a stack', () => {
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'openapi: 3.0.3\ninfo: [unclosed\n');
  const swagger = join(dir, 'swagger.json');
  writeFileSync(swagger, JSON.stringify({ swagger: '2.0', info: { title: 'T', version: '1' }, paths: {} }));
  const cases: [string[], RegExp][] = [
    [['import', join(dir, 'missing.yaml')], /There is no file '.*missing\.yaml'\. \[file-not-found\]/],
    [['import', broken], /broken\.yaml:\d+:\d+: error: YAML syntax: .+ \[syntax-error\]/],
    [['import', swagger], /is not an OpenAPI 3\.0, 3\.1 or 3\.2 document: it is Swagger 2\.0; convert it to OpenAPI 3 first\. \[import-not-openapi\]/],
    [['import', join(ROOT, 'examples/library.yaml')], /is not an OpenAPI 3\.0, 3\.1 or 3\.2 document: it has no 'openapi' member naming its version\. \[import-not-openapi\]/],
    [['import', PETSTORE, '--format', 'xml'], /--format must be one of yaml, json; 'xml' is not\./],
    [['import'], /svcspec: /],
  ];
  for (const [args, message] of cases) {
    const r = cli(args);
    assert.equal(r.status, 2, `${args.join(' ')}\n${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at |internal error/);
    assert.equal(r.stdout, '');
  }
  assert.match(cli(['import', broken]).stderr, /svcspec: cannot import '.*broken\.yaml': it could not be read as an OpenAPI 3\.0, 3\.1 or 3\.2 document\./);
  assert.equal(existsSync(join(dir, 'missing.yaml')), false);
});

test('cli: svcspec import summarises its findings by code, with counts and the first of each; --verbose prints every one', () => {
  const traccar = join(ROOT, 'test/import/fixtures/traccar.yaml');
  const verbose = cli(['import', traccar, '-o', join(dir, 'traccar-v.yaml'), '--verbose']);
  assert.equal(verbose.status, 0, verbose.stderr);
  const every = verbose.stderr.trim().split('\n').slice(0, -1);
  for (const line of every) assert.match(line, FINDING);
  const counts = new Map<string, number>();
  for (const line of every) {
    const code = /\[([a-z0-9-]+)\]$/.exec(line)![1];
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const summary = cli(['import', traccar, '-o', join(dir, 'traccar-s.yaml')]);
  assert.equal(summary.status, 0, summary.stderr);
  const lines = summary.stderr.trim().split('\n');
  assert.ok(lines.length < every.length, `${lines.length} summary lines for ${every.length} findings`);
  assert.ok(lines.includes(`svcspec: ${every.length} findings, summarised by code; --verbose prints every one.`), lines.join('\n'));
  // One line per code: its count (or the finding itself when it is alone), the first of them in full.
  for (const [code, count] of counts) {
    const mine = lines.filter((l) => l.includes(`[${code}]`));
    assert.equal(mine.length, 1, `${code}: ${mine.join(' | ')}`);
    if (count > 1) assert.match(mine[0], new RegExp(`^svcspec: ${count} × (warning|info) \\[${code}\\], the first at \\S+:\\d+:\\d+: `));
    else assert.match(mine[0], FINDING);
  }
});

test('cli: the command imports in its worker (src/import/isolated.ts) exactly what importOpenApi gives in one thread', async () => {
  const { importOpenApi } = await import('../../src/import/index.ts');
  const { importOpenApiText } = await import('../../src/import/isolated.ts');
  const box = join(ROOT, 'test/import/fixtures/real/box-openapi.json');
  const direct = await importOpenApi(box);
  const isolated = await importOpenApiText(box);
  assert.ok(direct.value && isolated.value);
  assert.equal(isolated.value.yaml, direct.value.yaml);
  assert.equal(isolated.value.json, direct.value.json);
  assert.equal(isolated.value.openapi, '3.0.2');
  assert.deepEqual(isolated.diagnostics, direct.diagnostics);
  // A file that is no OpenAPI document: findings come back from the worker, no value.
  const bad = join(dir, 'not-openapi.yaml');
  writeFileSync(bad, 'hello: world\n');
  const refused = await importOpenApiText(bad);
  assert.equal(refused.value, undefined);
  assert.equal(refused.diagnostics[0]?.code, 'import-not-openapi');
});

test('cli: svcspec import of a YAML document works from a folder with no node_modules (the worker\'s global require resolved its dependencies from there: "Cannot find module \'yaml\'")', () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'svcspec-import-elsewhere-'));
  try {
    // An anchor: the one kind of text `yaml` itself reads (src/load/yaml.ts), loaded on first use.
    const doc = join(elsewhere, 'anchored.yaml');
    writeFileSync(doc, readFileSync(PETSTORE, 'utf8').replace(/^info:/m, 'x-shared: &shared { note: one }\nx-again: *shared\ninfo:'));
    const r = cli(['import', doc, '-o', join(elsewhere, 'out.yaml')], elsewhere);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /internal error|Cannot find module/);
    assert.ok(existsSync(join(elsewhere, 'out.yaml')));
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
