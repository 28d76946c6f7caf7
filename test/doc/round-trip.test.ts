/**
 * The Markdown document loads back into the Spec it was written from: for every example,
 * for the founding document, and for specs that stress the layout (a title with Markdown
 * in it, prose, `none`, text that looks like fences or markers).
 */
import { FOUNDING_SKIP } from '../support/spec.ts';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { renderDocument } from '../../src/doc/index.ts';
import { loadSpecText } from '../../src/load/index.ts';
import type { Spec } from '../../src/spec/model.ts';
import { mustLoad } from '../support/spec.ts';
import { examples, FOUNDING, withoutSource } from './helpers.ts';

function roundTrip(spec: Spec): { back: Spec | undefined; codes: string[]; markdown: string } {
  const markdown = renderDocument(spec, { format: 'md' });
  const { value, diagnostics } = loadSpecText(markdown, { file: 'x.md', kind: 'markdown' });
  return { back: value, codes: diagnostics.map((d) => `${d.code} ${d.location?.line}: ${d.message}`), markdown };
}

function assertRoundTrip(spec: Spec): string {
  const { back, codes, markdown } = roundTrip(spec);
  assert.deepEqual(codes, [], 'the rendered document loads without findings');
  assert.deepStrictEqual(withoutSource(back), withoutSource(spec));
  // And again: rendering the loaded document gives the same text.
  assert.equal(renderDocument(back as Spec, { format: 'md' }), markdown);
  return markdown;
}

test('every example round-trips through Markdown', async (t) => {
  const all = await examples();
  assert.ok(all.some((e) => e.name === 'library.yaml' && e.spec), 'library.yaml loads');
  for (const example of all) {
    await t.test(example.name, () => {
      assert.ok(example.spec, `${example.name} loads: ${example.problem}`);
      assertRoundTrip(example.spec);
    });
  }
});

test('nested paths, declared parameters, singletons and parent visibility round-trip (issue #13)', async () => {
  const text = await readFile(new URL('../serve/fixtures/clinic.yaml', import.meta.url), 'utf8');
  const markdown = assertRoundTrip(mustLoad(text));
  assert.match(markdown, /`\{patientId\}` \| the id of the patient its `patient` names/);
  assert.match(markdown, /operation: list/);
  assert.match(markdown, /journalId: \{ref: journal\}/);
});

test('the founding document round-trips, prose and all', { skip: FOUNDING_SKIP }, async () => {
  const spec = mustLoad(await readFile(FOUNDING, 'utf8'), 'markdown');
  const markdown = assertRoundTrip(spec);
  assert.match(markdown, /^## What the service does\n\n- The service's purpose: not shown\.\n- Its users and the tasks they perform: not shown\.$/m);
});

test('a spec with no title and no version round-trips: the shown title is generated', () => {
  const spec = mustLoad('## Events\n\n- Events: not shown.\n\n## Errors\n\n```yaml\nnone: Nothing fails.\n```\n', 'markdown');
  assert.equal(spec.title, undefined);
  assert.equal(spec.formatVersion, undefined);
  const markdown = assertRoundTrip(spec);
  assert.ok(markdown.startsWith('<!-- svcspec:generated -->\n\n# Service interface specification\n'));
});

test('a stressful spec round-trips: markup in the title, prose, none, fences and markers in text', () => {
  const yaml = [
    'svcspec: 1',
    'title: "The *Best* API # 1 <b>"',
    'purpose:',
    '  name: "`tick` service"',
    '  summary: |',
    '    First paragraph with a fence:',
    '    ```',
    '    <!-- /svcspec:generated -->',
    '    ## Not a heading',
    '',
    '    Second paragraph | with a pipe.',
    'resources:',
    '  thing:',
    '    fields:',
    '      name: string',
    '      odd: {type: string, enum: ["a|b", "c`d"], pattern: "^a|b`c$", description: "x | y ``` z"}',
    '      tags: {type: array, items: {type: object, properties: {k: string}}}',
    '      meta: {type: object, properties: {}}',
    '      when: {type: string, default: null}',
    'endpoints:',
    '  thing:',
    '    read: {method: GET, path: "/things/{id}"}',
    '    list: {responses: {200: page, 206: {body: page, description: Partial.}}, request: none}',
    '    update: {request: resource}',
    'authentication: {schemes: {}}',
    'events: {none: "No events; see `docs`."}',
    'errors: {shape: {mediaType: application/json, members: {code: error, title: message}}}',
    'limits:',
    '  rate: {limit: 5, window: 90s, scope: address, overrides: {thing.read: {limit: 1, window: 1500ms, scope: credential}}}',
    '  body: {maxSize: 1000}',
    '  timeouts: {request: 2m, status: 503}',
    '  pagination: {style: offset, defaultSize: 5, maxSize: 10, overMax: reject, params: {size: per_page}}',
    'versioning: {select: {path: "/v{version}"}, versions: {}}',
  ].join('\n');
  const spec = mustLoad(yaml);
  const markdown = assertRoundTrip(spec);
  assert.match(markdown, /^```yaml\nsvcspec: 1\ntitle: /m, 'a title with markup goes into the top block');
  assert.ok(markdown.includes('````yaml'), 'a longer fence around content holding a fence');
});

test('author prose with headings, lists and code survives next to the generated tables', () => {
  const text = [
    '# Prose',
    '',
    '## Errors',
    '',
    'Intro with *emphasis*.',
    '',
    '### Notes',
    '',
    '- one',
    '- two',
    '',
    '    indented code',
    '',
    '```yaml',
    'catalog: {oops: {status: 400, title: Oops}}',
    '```',
  ].join('\n');
  const spec = mustLoad(text, 'markdown');
  assert.equal(spec.parts.errors.prose, 'Intro with *emphasis*.\n\n### Notes\n\n- one\n- two\n\n    indented code');
  assertRoundTrip(spec);
});

test('actions (own shapes), bulk creates and expandable refs round-trip through Markdown', async () => {
  const text = await readFile(new URL('../serve/fixtures/open-surface.yaml', import.meta.url), 'utf8');
  const spec = mustLoad(text);
  assert.ok(spec.endpoints.some((e) => e.action?.response.kind === 'shape') && spec.endpoints.some((e) => e.bulk) && spec.endpoints.some((e) => e.expand));
  assertRoundTrip(spec);
});

test('domain rules round-trip and are said in words (#14)', () => {
  const spec = mustLoad(`svcspec: 1
resources:
  shelf:
    fields:
      id: {type: string, readOnly: true}
      name: {type: string, required: true}
      size: {type: integer, default: 10}
      held: {type: integer, readOnly: true, managed: {expr: '0', on: create}}
      code: {type: string, readOnly: true, managed: {sequence: 'S-{n:4}'}}
      by: {type: string, readOnly: true, managed: created-by}
    unique:
      - {fields: [name], where: {size: [10, 20]}, ignoreCase: true, error: name-taken, name: shelfName}
    rules:
      - {rule: self.held <= self.size, error: too-full, message: No room., field: held}
    onDelete:
      counts:
        held: {resource: item, where: {shelf: self.id, kept: true, label: [a, b]}}
      guards:
        - {rule: count.held == 0, error: shelf-in-use}
  item:
    fields:
      id: {type: string, readOnly: true}
      shelf: {type: ref, resource: shelf, nullable: true, onDelete: nullify}
      box: {type: ref, resource: shelf, onDelete: cascade}
      kept: {type: boolean}
      label: {type: string}
      at: {type: string, format: date-time, readOnly: true}
    onCreate:
      effects:
        - {ref: shelf, increment: {held: 1}}
        - set: {at: now}
states:
  item:
    field: label
    states: [a, b]
    initial: a
    transitions:
      move: {from: a, to: b, guards: [{rule: 'refs.shelf.size > 0', error: shelf-in-use}], effects: [{ref: shelf, increment: {held: -1}}]}
endpoints:
  shelf: [create, read, delete]
  item:
    create: {}
    tidy: {operation: action, path: '/items/{id}/tidy', guards: [{rule: 'self.kept', error: shelf-in-use}], effects: [{set: {kept: 'false'}}]}
errors:
  catalog:
    name-taken: {status: 409, title: Name taken}
    too-full: {status: 422, title: Too full}
    shelf-in-use: {status: 409, title: In use}
    other: {status: 500, title: Other, raisedBy: implementation}
`);
  const markdown = assertRoundTrip(spec);
  assert.match(markdown, /No two shelf records share `name` \(ignoring case\), among the shelf records whose `size` is `10` or `20`/);
  assert.match(markdown, /`self.held <= self.size` must hold after every write; otherwise refused with `too-full` at `\/held`: No room\./);
  assert.match(markdown, /`code`: Set by the service on create: the next number of its own counter, from 1, formatted as `S-\{n:4\}`\./);
  assert.match(markdown, /`shelf`: Deleting the shelf it names sets it to null\./);
  assert.match(markdown, /On delete: Where `count.held` is the number of item records whose `shelf` is `self.id`/);
  assert.match(markdown, /Transition `move`: Refused with `shelf-in-use` unless `refs.shelf.size > 0`\. On the shelf it names, it takes 1 from `held`\./);
  assert.match(markdown, /Action `item.tidy`: Refused with `shelf-in-use` unless `self.kept`\. On the record, it sets `kept` to `false`\./);
});
