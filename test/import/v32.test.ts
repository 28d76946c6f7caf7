/**
 * OpenAPI 3.2 imports as 3.1 once its own constructs are out: each is reported where it
 * stands, with what the import does instead; the rest becomes the spec as any 3.1 document.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { checkSpec } from '../../src/check/index.ts';
import { importOpenApi } from '../../src/import/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'svcspec-import-32-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DOC = `openapi: 3.2.0
$self: https://example.com/notes.yaml
info: { title: Notes, version: "1" }
tags:
  - { name: notes, summary: Notes, kind: nav }
paths:
  /notes:
    get:
      parameters:
        - { name: q, in: querystring, content: { application/x-www-form-urlencoded: { schema: { type: object } } } }
      responses:
        "200":
          description: The notes.
          content:
            application/json:
              schema: { type: array, items: { $ref: "#/components/schemas/Note" } }
            application/jsonl:
              itemSchema: { $ref: "#/components/schemas/Note" }
    query:
      responses:
        "200": { description: Notes found by a query in the body. }
  /notes/{id}:
    parameters:
      - { name: id, in: path, required: true, schema: { type: string } }
    get:
      responses:
        "200":
          summary: One note
          description: The note.
          content:
            application/json:
              schema: { $ref: "#/components/schemas/Note" }
components:
  schemas:
    Note:
      type: object
      required: [id, text]
      properties:
        id: { type: string, readOnly: true }
        text: { type: string, maxLength: 200 }
`;

test('import 3.2: the document is read as 3.1; QUERY, querystring, itemSchema, $self and tag kinds are reported where they stand', async () => {
  const file = join(dir, 'notes.yaml');
  writeFileSync(file, DOC);
  const r = await importOpenApi(file);
  assert.ok(r.value, r.diagnostics.map((d) => d.message).join('\n'));
  assert.equal(r.value.openapi, '3.2.0');
  const { spec } = r.value;
  assert.deepEqual(spec.endpoints.map((e) => `${e.id} ${e.method} ${e.path}`), ['note.list GET /notes', 'note.read GET /notes/{id}']);
  assert.deepEqual(spec.resources[0].fields.map((f) => f.name), ['id', 'text']);
  const taken = r.diagnostics.filter((d) => d.code === 'import-openapi-32');
  const where = Object.fromEntries(taken.map((d) => [/uses (.+), new in/.exec(d.message)![1], [d.pointer, d.location?.line]]));
  assert.deepEqual(where, {
    "'$self', the document's own URI": ['/$self', 2],
    "tags' 'summary'": ['/tags/0/summary', 5],
    "tags' 'kind'": ['/tags/0/kind', 5],
    'QUERY operations': ['/paths/~1notes/query', 20],
    "parameters 'in: querystring'": ['/paths/~1notes/get/parameters/0', 10],
    "'itemSchema' (streamed items)": ['/paths/~1notes/get/responses/200/content/application~1jsonl/itemSchema', 18],
    "responses' 'summary'": ['/paths/~1notes~1{id}/get/responses/200/summary', 28],
  });
  assert.ok(taken.every((d) => d.severity === 'warning' && /svcspec has no counterpart for: (left out|not carried)/.test(d.message)));
  const errors = checkSpec(spec, []).diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => d.message), []);
});

test('import 3.2: a document that breaks 3.1 once its 3.2 constructs are out is refused as invalid, in our words', async () => {
  const file = join(dir, 'broken.yaml');
  writeFileSync(file, 'openapi: 3.2.0\ninfo: { title: T, version: "1" }\npaths:\n  /a:\n    get: { responses: { "200": { summary: OK } } }\n');
  const r = await importOpenApi(file);
  assert.equal(r.value, undefined);
  const d = r.diagnostics.find((x) => x.code === 'import-openapi-invalid');
  assert.ok(d, r.diagnostics.map((x) => x.code).join(', '));
  // The response's 3.2 summary is taken out; what is left lacks the description 3.1 requires.
  assert.match(d.message, /not a valid OpenAPI 3\.2\.0 document: .*description/);
});
