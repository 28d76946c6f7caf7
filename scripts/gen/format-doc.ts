/**
 * docs/format.md: the reference of the authoring format. The prose is written here; the
 * key tables come from walking FORMAT_SCHEMA, and the endpoint conventions from the
 * loader's own CONVENTIONS, so neither can drift from what the loader does.
 */
import { conventionalPath, CONVENTIONS } from '../../src/spec/conventions/endpoints.ts';
import { FORMAT_SCHEMA } from '../../src/spec/format-schema.ts';
import { STANDARD_OPERATIONS, type EndpointResponse, type RequestShape, type ResponseBody } from '../../src/spec/model.ts';
import { PARTS, type PartName } from '../../src/spec/parts.ts';
import { FORMAT_EXAMPLE } from './format-example.ts';
import { anchor, code, document, generatedNotice, table } from './markdown.ts';
import { SchemaWalker, type SchemaNode, type SchemaSection } from './schema-walk.ts';

const INTRO = `A svcspec document describes one service interface in nine parts, always in this order:

${PARTS.map((p) => `${p.number}. [${p.title}](#part-${p.name}) (${code(p.name)}): ${lowerFirst(p.asks)}`).join('\n')}

It is written in YAML (or JSON, or Markdown with one fenced \`yaml\` block per part). This page
documents every key of the format; it is generated from the JSON Schema the loader validates
with, [\`schema/svcspec.schema.json\`](../schema/svcspec.schema.json).`;

const CONVENTIONS_OF_THE_FORMAT = `## How a spec is written

- **A part that is missing, or empty, is a gap.** Nothing is supplied in its place: \`svcspec check\`
  reports it ([\`part-gap\`](diagnostics.md#part-gap)) and fails unless \`--allow-gaps\` is given.
- **\`{ none: reason }\` states that a part does not apply**, for instance
  \`events: { none: "The service emits no events." }\`. Unlike a gap, this is a statement: the
  part counts as stated. A part cannot say \`none\` and have content.
- **Only the keys listed here are allowed.** An unknown key is an error
  ([\`unknown-key\`](diagnostics.md#unknown-key)), with the closest known key suggested.
- **Durations** are a whole number and a unit: \`ms\`, \`s\`, \`m\`, \`h\` or \`d\` (\`250ms\`, \`30s\`, \`1h\`).
- **Sizes** are a number of bytes (\`65536\`) or a whole number and a unit: \`B\`, \`KB\`, \`KiB\`,
  \`MB\` or \`MiB\` (\`64KiB\`). KB and MB are powers of 1000, KiB and MiB powers of 1024.
- **Fields have a short form**: \`title: string\` is \`title: {type: string}\`.
- **Versions are names.** \`since\`, \`until\` and \`default\` may be written as numbers (\`2\`), but
  quote version keys and dates (\`"2"\`, \`released: "2026-01-15"\`) so YAML keeps them as text.

### YAML traps

Flow style (\`{...}\` and \`[...]\`) is compact, but inside it a comma ends a value and braces
open a map. Quote values that contain a comma, a brace, a colon followed by a space, or that
start with \`@\`, \`*\`, \`&\`, \`!\`, \`%\`, \`|\` or \`>\`:

\`\`\`yaml
versioning:
  select: {path: "/v{version}"}      # unquoted, {version} would be read as a map
errors:
  catalog:
    not-found: {status: 404, title: Not found, when: 'No record has that id, or the path is unknown.'}
\`\`\`

Also quote values YAML would otherwise read as another type: \`"yes"\`, \`"no"\`, \`"on"\`,
\`"1.10"\` and dates (\`"2026-01-15"\`).

### Editor support

Editors with the YAML language server (VS Code's YAML extension, for instance) complete and
check keys when the first line of the spec names the schema:

\`\`\`yaml
# yaml-language-server: $schema=./node_modules/svcspec/schema/svcspec.schema.json
\`\`\`

The schema is also exported by the package as \`svcspec/schema.json\`.

### Reading this reference

Each object of the format has a table of its keys: the key, what its value is, whether it is
required there, and what it means. In the headings, \`<name>\` stands for a key you choose (a
resource name, a field name, an error code) and \`[]\` for each item of a list. "object" links to
the table of that object's keys.`;

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

const BODY_WORDS: Readonly<Record<ResponseBody, string>> = {
  resource: 'the record',
  page: 'a page of records',
  none: 'no body',
  error: 'an error body',
};

function requestWords(request: RequestShape, operation: string): string {
  if (request.kind === 'none') return 'none';
  if (request.kind === 'resource') return request.partial ? 'the writable fields, each optional (a partial update)' : 'the writable fields; the required ones must be sent';
  if (operation === 'transition') return 'the fields the transition `requires` (an empty body when it requires none)';
  return request.fields.length ? `the fields ${request.fields.map(code).join(', ')}` : 'none';
}

function responseWords(responses: readonly EndpointResponse[]): string {
  return responses.map((r) => `${r.status}, ${BODY_WORDS[r.body]}`).join('; ');
}

function endpointConventions(): string {
  const operations = [...STANDARD_OPERATIONS, 'transition'] as const;
  const rows = operations.map((op) => {
    const c = CONVENTIONS[op];
    const path = op === 'transition' ? conventionalPath('{plural}', op, '{transition}') : conventionalPath('{plural}', op);
    return [op === 'transition' ? '*a transition* (`approve`)' : code(op), code(c.method), code(path), requestWords(c.request, op), responseWords(c.responses)];
  });
  return `${anchor('endpoint-conventions')}
### Endpoint conventions

In the short form (\`book: [create, read, list]\`) every endpoint follows the convention of its
operation; any other name in the list is a transition of the resource's state machine. In the
explicit form (\`book: { read: {}, create: { summary: ... } }\`) an endpoint written as \`{}\` or
left empty follows the convention too, and each key it does give (\`method\`, \`path\`,
\`request\`, \`responses\`) replaces only that part of the convention. \`{plural}\` is the
resource's \`plural\` (its name when it has none), \`{id}\` the record id; paths are relative to
\`{base_url}\`.

${table(['Operation', 'Method', 'Path', 'Request body', 'Response (status, body)'], rows)}

Every endpoint may also answer with an error body at the statuses of
[docs/http-errors.md](http-errors.md) (and those of the spec's own error codes).`;
}

const ENDPOINT_IDS = `${anchor('endpoint-ids')}
### Endpoint ids

Other parts name endpoints by id:

- \`resource.operation\` for a standard operation: \`book.read\`, \`loan.create\`;
- \`resource.transition\` for a transition: \`loan.approve\`;
- \`resource.*\` for every endpoint of a resource, in \`authentication.public\` and
  \`authentication.require\`: \`readingList.*: [lists]\`.

They are used by \`authentication.public\` and \`authentication.require\` (an exact id wins over
\`resource.*\`) and by \`limits.rate.overrides\`. Event triggers (\`events.catalog.<event>.on\`)
look alike but name what happened to a record: \`book.created\`, \`book.updated\`,
\`book.deleted\`, or a transition, \`loan.approve\`.`;

const PAGE_SHAPES = `${anchor('page-shapes')}
### Page shapes

svcspec's own page is \`{"items": [...], "next": <position> | null}\` (the offset style adds
\`"offset"\`), with \`Link: <…>; rel="next"\` (RFC 8288) when a page follows. A service svcspec did
not design states its own:

| The service | \`limits.pagination\` |
|---|---|
| numbered pages, \`?page=2&per_page=25\` | \`style: page, params: {position: page, size: per_page}\` |
| a bare array, the next page only in \`Link\` (GitHub) | \`body: array\` |
| records under \`data\`, the total under \`total\` | \`body: {items: data, next: next, total: total}\` |
| every record as a bare array unless a page is asked for (json-server) | \`unpaged: all\` |
| any page size a client asks for | \`maxSize: none\` |
| \`?_sort=-views\` | \`params: {sort: _sort}\` |

The reference service answers in the declared shape, export describes it, and the tester
reads pages by it (src/spec/conventions/pagination.ts is the one definition). Decisions: a body
without a \`next\` member is walked by its \`Link\` header; \`total\` counts every record the
caller may see under the same filters; with \`unpaged: all\` the tester asks for pages by their
first position (0 or 1) so that it reads a page, not the whole list.`;

const FOREIGN = `${anchor('describing-an-existing-service')}
## Describing a service svcspec did not design

The format's defaults are svcspec's conventions; each can be stated otherwise, so that an
existing service is described as it is (examples/json-server.yaml describes json-server):

| What the service does | How the spec says it |
|---|---|
| answers an undeclared method 404, not 405 | \`errors.catalog.not-found: {status: 404, for: [not-found, method-not-allowed]}\` (no \`Allow\` then: it goes with 405 only) |
| error bodies of one member, \`{"error": "Not Found"}\` | \`errors.shape: {mediaType: application/json, members: {title: error}}\` (a shape names only the members it has; without \`code\` the tester judges errors by status and shape) |
| keeps members a record does not declare | \`resources.<r>.unknownFields: keep\` |
| ignores an id (or other member it sets) sent by a client | \`resources.<r>.readOnlyFields: ignore\` |
| chooses opaque text ids (\`a7Kurl72mD0\`, \`cus_…\`) | \`id: {field: id, assigned: service}\` |
| has no rate limit, no time-out | \`limits.rate: {none: reason}\`, \`limits.timeouts: {none: reason}\` (statements: the part can be complete, and the reference applies none) |
| pages its own way | [page shapes](#page-shapes) |`;

/** Hand-written sections that follow the generated tables of a part. */
const AFTER_PART: Partial<Record<PartName, string>> = {
  endpoints: `${endpointConventions()}\n\n${ENDPOINT_IDS}`,
  limits: PAGE_SHAPES,
  versioning: FOREIGN,
};

function renderSection(section: SchemaSection): string {
  const rows = section.rows.map((r) => [code(r.key), r.type, r.required ? 'yes' : 'no', r.description]);
  return document([
    `${anchor(section.anchor)}\n### ${section.heading}`,
    ...section.intro,
    rows.length ? table(['Key', 'Value', 'Required', 'Description'], rows) : undefined,
    ...section.outro,
  ]).trimEnd();
}

export interface FormatDoc {
  readonly text: string;
  /** What the schema leaves unsaid or unused: keys without a description, definitions nothing refers to. */
  readonly warnings: readonly string[];
}

export function renderFormatDoc(): FormatDoc {
  const schema = FORMAT_SCHEMA as unknown as SchemaNode;
  const properties = schema.properties as Readonly<Record<string, SchemaNode>>;
  const walker = new SchemaWalker();
  const partBlocks: string[] = [];
  for (const part of PARTS) {
    const node = properties[part.name];
    if (!node) throw new Error(`The format schema has no key for part '${part.name}'.`);
    const sections = walker.walk(part.name, node);
    partBlocks.push(document([
      `${anchor(`part-${part.name}`)}\n## ${part.number}. ${part.title}: ${code(part.name)}`,
      typeof node.description === 'string' ? node.description : undefined,
      `Written as ${walker.typeText(part.name, node)}.`,
      ...sections.map(renderSection),
      AFTER_PART[part.name],
    ]).trimEnd());
  }
  const partNames = new Set<string>(PARTS.map((p) => p.name));
  const topRows = Object.entries(properties).map(([key, node]) => [
    code(key),
    partNames.has(key) ? `part, see [${PARTS.find((p) => p.name === key)!.number}. ${key}](#part-${key})` : walker.typeText(key, node),
    (schema.required as readonly string[] | undefined)?.includes(key) ? 'yes' : 'no',
    typeof node.description === 'string' ? node.description : '',
  ]);
  for (const [key, node] of Object.entries(properties)) if (typeof node.description !== 'string') walker.undocumented.push(key);
  const text = document([
    '# The svcspec format',
    generatedNotice(['src/spec/format-schema.ts', 'src/load/normalize/endpoints.ts']),
    INTRO,
    `## A short example\n\n\`\`\`yaml\n${FORMAT_EXAMPLE.trimEnd()}\n\`\`\``,
    CONVENTIONS_OF_THE_FORMAT,
    `${anchor('document')}\n## The document\n\nThe top level of a spec is a map of these keys; \`svcspec\` comes first, then \`title\`, then the parts in order.\n\n${table(['Key', 'Value', 'Required', 'Description'], topRows)}`,
    ...partBlocks,
  ]);
  const declared = Object.keys(FORMAT_SCHEMA.definitions);
  const unreached = declared.filter((d) => !walker.defPaths.has(d));
  return {
    text,
    warnings: [
      ...walker.undocumented.map((path) => `format schema: '${path}' has no description.`),
      ...unreached.map((name) => `format schema: the definition '${name}' is not referred to, so it is not documented.`),
    ],
  };
}
