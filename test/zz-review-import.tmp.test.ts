import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { importOpenApi } from '../src/import/index.ts';

const DOC = `openapi: 3.0.3
info: { title: Teams, version: '1' }
paths:
  /teams:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Team' } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Team' } } } } }
  /teams/{teamId}:
    parameters: [{ name: teamId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Team' } } } } } }
  /people:
    post:
      requestBody: { content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } }
      responses: { '201': { description: Created, content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } } }
  /people/{personId}:
    parameters: [{ name: personId, in: path, required: true, schema: { type: string } }]
    get: { responses: { '200': { description: OK, content: { application/json: { schema: { $ref: '#/components/schemas/Person' } } } } } }
components:
  schemas:
    Person:
      type: object
      required: [name]
      properties: { id: { type: string, readOnly: true }, name: { type: string } }
    Address:
      type: object
      properties: { street: { type: string }, city: { type: string } }
    Team:
      type: object
      required: [address]
      properties: { address: { $ref: '#/components/schemas/Address' } }
`;

test('import one-member record', async () => {
  writeFileSync('/tmp/review/teams.yaml', DOC);
  const r = await importOpenApi('/tmp/review/teams.yaml');
  const spec = r.value!.spec;
  console.log(JSON.stringify(spec.resources.map((x) => ({ name: x.name, envelope: x.envelope, fields: x.fields.map((f) => f.name) }))));
  console.log(JSON.stringify(spec.endpoints.map((e) => ({ id: e.id, path: e.path, op: e.operation, req: e.request, res: e.responses }))));
  console.log(r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
});
