/** Rules of part 7, errors: a row per finding, and near misses that must stay silent. */
import { table } from './table.ts';

const without = (...codes: string[]) => ({ errors: { catalog: Object.fromEntries(codes.map((c) => [c, undefined])) } });

table('rate-limit-without-429', [
  { name: 'a rate limit and no 429 code', patch: without('rate-limited'), expect: ['rate-limit-without-429 /errors/catalog'], messages: [/A rate limit is set \(100 requests in 1m\)/] },
  { name: 'no rate limit, no 429 needed', patch: { ...without('rate-limited'), limits: { rate: undefined } }, expect: [] },
]);

table('conditional-without-412', [
  { name: 'writes honour If-Match and no 412 code', patch: { limits: { conditional: { validators: ['etag'] } } }, expect: ['conditional-without-412 /errors/catalog'], messages: [/no code with status 412/] },
  { name: 'writes do not honour preconditions', patch: { limits: { conditional: { validators: ['etag'], writes: false } } }, expect: [] },
  { name: 'conditional requests unstated', patch: {}, expect: [] },
]);

table('timeout-without-error', [
  { name: 'a time-out and no code with its status', patch: without('timeout'), expect: ['timeout-without-error /errors/catalog'], messages: [/longer than 5s are answered with 504/] },
  { name: 'a time-out answered with a status no code has', patch: { limits: { timeouts: { status: 503 } } }, expect: ['timeout-without-error /errors/catalog'] },
]);

table('body-limit-without-413', [
  { name: 'a body limit and no 413 code', patch: without('payload-too-large'), expect: ['body-limit-without-413 /errors/catalog'], messages: [/limited to 64KiB/] },
]);

table('auth-without-401', [
  { name: 'credentials needed and no 401 code', patch: without('unauthenticated'), expect: ['auth-without-401 /errors/catalog'], messages: [/such as 'project.create' need a credential/] },
]);

table('transition-without-409', [
  {
    name: 'transitions and no 409 code',
    patch: without('invalid-transition'),
    expect: ['transition-without-409 /errors/catalog', 'endpoint-error-undeclared /endpoints/task/finish/errors/0', 'endpoint-error-status-undeclared /endpoints/task/finish/responses/409'],
  },
]);

const retired = { versioning: { versions: { 0: { status: 'retired', released: '2023-01-01', deprecated: '2023-06-01', sunset: '2024-01-01' } } } };
table('version-retired-without-410', [
  { name: 'a retired version and no 410 code', patch: { ...retired, ...without('version-retired') }, expect: ['version-retired-without-410 /errors/catalog'], messages: [/Version '0' is retired/] },
  { name: 'no retired version, no 410 needed', patch: without('version-retired'), expect: [] },
]);

table('error-catalog-missing-validation', [
  { name: 'request bodies and no 400 or 422 code', patch: without('malformed-body', 'validation-failed'), expect: ['error-catalog-missing-validation /errors/catalog', 'endpoint-error-undeclared /endpoints/task/create/errors/0'] },
  { name: 'a 400 code is enough', patch: without('validation-failed'), expect: ['endpoint-error-undeclared /endpoints/task/create/errors/0'] },
]);

table('error-shape-member-duplicate', [
  {
    name: 'one member for two roles',
    patch: { errors: { shape: { mediaType: 'application/json', members: { code: 'code', title: 'message', detail: 'message' } } } },
    expect: ['error-shape-member-duplicate /errors/shape/members/detail'],
    messages: [/The error body member 'message' carries both the title and the detail\./],
  },
]);
