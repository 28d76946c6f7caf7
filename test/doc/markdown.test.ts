/** The Markdown document: readable tables in generated regions, the part as a yaml block, gaps in the founding words. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderDocument } from '../../src/doc/index.ts';
import { PARTS } from '../../src/spec/parts.ts';
import { mustLoad } from '../support/spec.ts';
import { examples } from './helpers.ts';

const render = (yaml: string) => renderDocument(mustLoad(yaml), { format: 'md' });

test('the nine sections, in order, titled as in the founding document', () => {
  const markdown = render('svcspec: 1\n');
  const headings = markdown.split('\n').filter((l) => l.startsWith('## '));
  assert.deepEqual(headings, PARTS.map((p) => `## ${p.title}`));
});

test('a gap renders "not shown" with what the part asks, inside a generated region', () => {
  const markdown = render('svcspec: 1\n');
  assert.match(markdown, /## Events\n\n<!-- svcspec:generated -->\n\nEvents, notifications or callbacks emitted by the service: not shown\.\n\n<!-- \/svcspec:generated -->/);
  assert.doesNotMatch(markdown, /## Events\n[\s\S]*?```yaml[\s\S]*?## Errors/, 'no yaml block for a gap');
});

test('none renders its reason and a `none` block', () => {
  const markdown = render('svcspec: 1\nevents: {none: This service emits no events.}\n');
  assert.match(markdown, /\*\*Does not apply\.\*\* This service emits no events\./);
  assert.match(markdown, /```yaml\nnone: This service emits no events\.\n```/);
});

test('the title is a plain H1 and the version stands in the top block', () => {
  const markdown = render('svcspec: 1\ntitle: Shop API\n');
  assert.ok(markdown.startsWith('# Shop API\n\n```yaml\nsvcspec: 1\n```\n'));
  const untitled = render('svcspec: 1\npurpose: {name: Shop}\n');
  assert.ok(untitled.startsWith('<!-- svcspec:generated -->\n\n# Shop\n\n<!-- /svcspec:generated -->'), 'a shown title that is not the title is generated');
});

test('library: human tables for fields, transitions, endpoints, errors and versions', async () => {
  const library = (await examples()).find((e) => e.name === 'library.yaml')?.spec;
  assert.ok(library);
  const markdown = renderDocument(library, { format: 'md' });
  assert.ok(markdown.includes('| Field | Type | Format | Required | Constraints | Description |'));
  assert.ok(markdown.includes('| `title` | string |   | yes | 1 to 300 characters | The title as printed on the title page. |'));
  assert.ok(markdown.includes('| `contact.channel` | string |   |   | one of `email`, `sms`, `none`; default `email` | Preferred channel for notices. |'));
  assert.ok(markdown.includes('| `approve` | `requested` | `active` | `dueDate` | The copy is handed out; the due date is fixed. |'));
  // Every error an endpoint can answer, by status, as the OpenAPI export lists them (src/spec/conventions/situations.ts).
  assert.ok(markdown.includes('| `book.read` | `GET {base_url}/books/{id}` |   | none | 200 resource | public | 400 `unknown-version`, 401 `unauthenticated`, 404 `not-found`, 429 `rate-limited` |'));
  assert.ok(markdown.includes('Besides the errors listed, every endpoint may answer 500 `internal`, 503 `unavailable`, 504 `timeout`.'));
  // What a webhook receiver gets and how a client subscribes, and the stream's resumption (docs/events.md).
  assert.ok(markdown.includes('A delivery is `POST <receiver URL>` with `{"type": …, "timestamp": …, "data": …}`'));
  assert.ok(markdown.includes('`webhook-signature` `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`'));
  assert.ok(markdown.includes('| `POST {base_url}/webhooks/{id}/rotate-secret` | 200, the subscription with its new `secret` |'));
  assert.ok(markdown.includes('sends the last id it saw in `Last-Event-ID`'));
  // Lists that declare no query are said to take the convention's filters and sort.
  assert.ok(markdown.includes('| `member.list` | each field holding one value | `<field>=<value>`; `sort=<field>` (`-<field>` descending) |'));
  assert.ok(markdown.includes('| `loan.approve` | `POST {base_url}/loans/{id}/approve` | Hand out the copy and fix the due date. | `dueDate` | 200 resource | scopes `loans:manage` | 400 `unknown-version`, `malformed-body`, 401 `unauthenticated`, 403 `forbidden`, 404 `not-found`, 409 `invalid-transition`, `book-unavailable`, 412 `precondition-failed`'));
  // A bulk write's body is its items (src/spec/conventions/bulk.ts), not none nor the record.
  assert.ok(markdown.includes('| `{"items": [ids]}` | 204 none |'));
  assert.ok(markdown.includes('| `{"items": […]}`, each item writable fields | 201 items |'));
  assert.ok(markdown.includes('| `not-found` | 404 | Not found | No record has that id, or the path is unknown. |'));
  assert.ok(markdown.includes('| `1` | deprecated | 2024-02-01 | 2026-06-01 | 2027-06-30 | `https://developers.citylibrary.example/lending/migrate-v1-to-v2` |'));
  assert.ok(markdown.includes('| `book.list` | 120 | 1 minute | client address |'));
  // The open surface: an action's prose and shapes, the bulk writes' bounds, expandable refs.
  assert.ok(markdown.includes('### Action `loan.remind`'));
  assert.ok(markdown.includes('- **Reference service:** answers 501 (not implemented) unless a handler for `loan.remind` is supplied'));
  assert.ok(markdown.includes('- **Response fields:** `sentAt` (string, required); `channel` (string, required, one of `email`, `sms`)'));
  assert.ok(markdown.includes('`book.import`: a bulk create. The body is `{ "items": [...] }`, at most 50 items'));
  assert.ok(markdown.includes('`book.bulkUpdate`: a bulk update. The body is `{ "items": [{ "id": ..., ...a merge patch }] }`, at most 50 items; all are changed in one transaction or none is'));
  assert.ok(markdown.includes('`book.bulkDelete`: a bulk delete. The body is `{ "items": [id, ...] }`, at most 50 items; all are deleted in one transaction or none is'));
  assert.ok(markdown.includes('`loan.read`: `?expand=` embeds the referenced records of `book`, `member`, to depth 1'));
  // Every generated region is closed, and none holds a yaml block.
  const opens = markdown.match(/^<!-- svcspec:generated -->$/gm)?.length;
  assert.equal(opens, markdown.match(/^<!-- \/svcspec:generated -->$/gm)?.length);
  for (const region of markdown.matchAll(/<!-- svcspec:generated -->([\s\S]*?)<!-- \/svcspec:generated -->/g)) {
    assert.doesNotMatch(region[1] ?? '', /```/);
  }
});

test('spec text in the tables is escaped for Markdown', () => {
  const markdown = render('svcspec: 1\nerrors: {catalog: {bad: {status: 400, title: "a | b", when: "# not a heading <b>x</b>"}}}\n');
  assert.ok(markdown.includes('| `bad` | 400 | a \\| b | \\# not a heading \\<b\\>x\\</b\\> |'));
});

test("an endpoint's operationId is shown beside its id, where the spec gives one", () => {
  const markdown = render('svcspec: 1\nresources: {note: {fields: {text: string}}}\nendpoints: {note: {create: {operationId: createNote}, read: {}}}\n');
  assert.match(markdown, /\| `note\.create` \(operation `createNote`\) \|/);
  assert.match(markdown, /\| `note\.read` \|/);
});
