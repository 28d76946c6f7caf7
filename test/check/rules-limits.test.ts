/** Rules of part 8, limits: a row per finding, and near misses that must stay silent. */
import { table } from './table.ts';

const limits = (value: Record<string, unknown>) => ({ limits: value });

table('pagination-default-above-max', [
  { name: 'a default page above the largest', patch: limits({ pagination: { defaultSize: 200 } }), expect: ['pagination-default-above-max /limits/pagination/defaultSize'], messages: [/The default page size \(200\) is above the largest page size \(100\)\./] },
  { name: 'a default page equal to the largest', patch: limits({ pagination: { defaultSize: 100 } }), expect: [] },
]);

table('pagination-params-conflict', [
  { name: 'the size renamed to the cursor', patch: limits({ pagination: { params: { size: 'cursor' } } }), expect: ['pagination-params-conflict /limits/pagination/params'], messages: [/query parameter 'cursor'/] },
  { name: 'the offset renamed to the size', patch: limits({ pagination: { style: 'offset', params: { position: 'limit' } } }), expect: ['pagination-params-conflict /limits/pagination/params'] },
  { name: 'the sort renamed to the page number', patch: limits({ pagination: { style: 'page', params: { position: '_page', size: '_per_page', sort: '_page' } } }), expect: ['pagination-params-conflict /limits/pagination/params'], messages: [/The page position and the sort parameter are both read from the query parameter '_page'/] },
  { name: "json-server's names, all distinct", patch: limits({ pagination: { style: 'page', maxSize: 'none', params: { position: '_page', size: '_per_page', sort: '_sort' }, body: { items: 'data', next: 'next', total: 'items' }, unpaged: 'all' } }), expect: [] },
]);

table('pagination-body-members-conflict', [
  { name: 'a page body with the total in the records member', patch: limits({ pagination: { body: { items: 'data', total: 'data' } } }), expect: ['pagination-body-members-conflict /limits/pagination/body'], messages: [/its items and its total in the same member 'data'/] },
  { name: 'a bare array body', patch: limits({ pagination: { body: 'array' } }), expect: [] },
  { name: 'one pointer and one name for the same member', patch: limits({ pagination: { body: { items: 'data', next: '/data' } } }), expect: ['pagination-body-members-conflict /limits/pagination/body'] },
]);

table('pagination-offset-member-style', [
  { name: 'an offset member in cursor pages', patch: limits({ pagination: { body: { items: 'data', next: 'next', offset: 'offset' } } }), expect: ['pagination-offset-member-style /limits/pagination/body/offset'], messages: [/The page body names an offset member \('offset'\), but pages are of the cursor style/] },
  { name: "a list's own page with an offset under page style", patch: { endpoints: { task: { list: { page: { items: 'tasks', offset: '/meta/offset' } } } }, limits: { pagination: { style: 'page' } } }, expect: ['pagination-offset-member-style /endpoints/task/list/page/offset'] },
  { name: 'near miss: an offset member in offset pages', patch: limits({ pagination: { style: 'offset', body: { items: 'data', next: 'next', offset: 'offset' } } }), expect: [] },
]);

table('pagination-body-member-inside', [
  { name: 'the next position inside the records', patch: limits({ pagination: { body: { items: 'data', next: '/data/next' } } }), expect: ['pagination-body-member-inside /limits/pagination/body'], messages: [/puts its next \('\/data\/next'\) inside its items \('data'\)/] },
  { name: "a list's own page with the count inside the next position", patch: { endpoints: { task: { list: { page: { items: 'tasks', next: '/meta/next', total: '/meta/next/total' } } } } }, expect: ['pagination-body-member-inside /endpoints/task/list/page'] },
  { name: "near miss: Lago's page, the next page and the count side by side in meta", patch: limits({ pagination: { body: { items: 'add_ons', next: '/meta/next_page', total: '/meta/total_count' } } }), expect: [] },
]);

table('pagination-array-without-links', [
  { name: 'a bare array page that links nothing', patch: limits({ pagination: { body: 'array', links: [] } }), expect: ['pagination-array-without-links /limits/pagination/links'], messages: [/no way to find the page after the first/] },
  { name: "a list's own bare array page, the part's linking by a next member", patch: { endpoints: { task: { list: { page: 'array' } } }, limits: { pagination: { links: [] } } }, expect: ['pagination-array-without-links /endpoints/task/list/page'], messages: [/The pages of 'task.list' are bare arrays and carry no links/] },
  { name: "near miss: the part's bare array, every list with its own next member", patch: { endpoints: { project: { create: {}, read: {}, update: {}, delete: {}, list: { page: { items: 'projects', next: '/meta/next' } } }, task: { list: { page: { items: 'tasks', next: '/meta/next' } } } }, limits: { pagination: { body: 'array', links: [] } } }, expect: [] },
  { name: 'a body naming no next position, linking nothing', patch: limits({ pagination: { body: { items: 'data' }, links: [] } }), expect: ['pagination-array-without-links /limits/pagination/links'], messages: [/Pages name no next position and carry no links/] },
  { name: 'a bare array page that links the next', patch: limits({ pagination: { body: 'array', links: ['next'] } }), expect: [] },
  { name: 'a bare array page, links unstated (the default links next)', patch: limits({ pagination: { body: 'array' } }), expect: [] },
  { name: 'an object page that links nothing', patch: limits({ pagination: { links: [] } }), expect: [] },
]);

table('pagination-without-list', [
  {
    name: 'pagination and no list endpoint',
    patch: { endpoints: { project: ['create', 'read', 'update', 'delete'], task: { list: undefined } } },
    expect: ['pagination-without-list /limits/pagination', 'auth-rule-unknown-endpoint /authentication/public/1'],
  },
]);

table('list-without-pagination', [
  { name: 'list endpoints and no pagination', patch: limits({ pagination: undefined }), expect: ['list-without-pagination /limits'], messages: [/'project.list', 'task.list' list records/] },
]);

table('rate-override-unknown-endpoint', [
  { name: 'an override for no endpoint', patch: limits({ rate: { overrides: { 'task.creat': { limit: 5, window: '1m' } } } }), expect: ['rate-override-unknown-endpoint /limits/rate/overrides/task.creat'], messages: [/Did you mean 'task.create'\?/] },
]);
