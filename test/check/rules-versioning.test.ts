/** Rules of part 9, versioning: a row per finding, and near misses that must stay silent. */
import { table, whole } from './table.ts';

const versioning = (value: Record<string, unknown>) => ({ versioning: value });
const version = (name: string, value: Record<string, unknown>) => versioning({ versions: { [name]: value } });
const V = '/versioning';
const DUE = '/resources/task/fields/dueOn';

table('version-default-unknown', [
  { name: 'a default that is not a version', patch: versioning({ default: 'v2' }), expect: [`version-default-unknown ${V}/default`], messages: [/The default version is 'v2', which is not a declared version \('1', '2'\)\. Did you mean '2'\?/] },
]);

table('version-default-retired', [
  { name: 'a retired default', patch: version('2', { status: 'retired' }), expect: [`version-default-retired ${V}/default`, `version-no-current ${V}/versions`] },
]);

table('version-default-missing', [
  { name: 'several versions and no default', patch: versioning({ default: undefined }), expect: [`version-default-missing ${V}`] },
]);

table('version-select-missing', [
  { name: 'several versions and no way to select one', patch: versioning({ select: undefined }), expect: [`version-select-missing ${V}`] },
  {
    name: 'one version needs no selection',
    patch: versioning({ select: undefined, default: undefined, versions: whole({ 2: { status: 'current', released: '2025-01-01' } }) }),
    expect: [`version-unknown ${DUE}/since`],
  },
]);

table('version-no-current', [
  { name: 'every version deprecated', patch: version('2', { status: 'deprecated' }), expect: [`version-no-current ${V}/versions`, `version-deprecated-without-date ${V}/versions/2/status`, `version-deprecated-without-sunset ${V}/versions/2/status`] },
]);

table('version-sunset-before-deprecation', [
  { name: 'a sunset before the deprecation', patch: version('1', { sunset: '2024-06-01' }), expect: [`version-sunset-before-deprecation ${V}/versions/1/sunset`], messages: [/Version '1' has its sunset \(2024-06-01\) before its deprecation \(2025-01-01\)\./] },
]);

table('version-ends-before-release', [
  { name: 'deprecated before released', patch: version('1', { deprecated: '2023-06-01' }), expect: [`version-ends-before-release ${V}/versions/1/deprecated`], messages: [/Version '1' is deprecated on 2023-06-01, before it was released on 2024-01-01\./] },
  { name: 'sunset before released and deprecated', patch: version('1', { sunset: '2023-12-01' }), expect: [`version-ends-before-release ${V}/versions/1/sunset`, `version-sunset-before-deprecation ${V}/versions/1/sunset`] },
]);

table('version-deprecated-without-sunset', [
  { name: 'a deprecated version without sunset', patch: version('1', { sunset: undefined }), expect: [`version-deprecated-without-sunset ${V}/versions/1/status`] },
]);

table('version-deprecated-without-date', [
  { name: 'a deprecated version without its date', patch: version('1', { deprecated: undefined }), expect: [`version-deprecated-without-date ${V}/versions/1/status`], messages: [/Version '1' is deprecated but has no `deprecated` date, so its responses carry no Deprecation header\./] },
  { name: 'a current version needs none', patch: version('2', { deprecated: undefined }), expect: [] },
]);

table('version-release-order', [
  { name: 'a newer version released first', patch: version('2', { released: '2023-06-01' }), expect: [`version-release-order ${V}/versions/2/released`], messages: [/Version '2' was released on 2023-06-01, before version '1' \(2024-01-01\)/] },
]);

table('version-unknown', [
  { name: 'a field since an unknown version', patch: { resources: { task: { fields: { dueOn: { since: '0' } } } } }, expect: [`version-unknown ${DUE}/since`], messages: [/Field 'dueOn' of 'task' names version '0' in `since`, which is not a declared version \('1', '2'\)\./] },
  { name: 'an event since an unknown version', patch: { events: { catalog: { 'task.finished': { since: 'v2' } } } }, expect: ['version-unknown /events/catalog/task.finished/since'], messages: [/Event 'task.finished'.*Did you mean '2'\?/] },
  {
    name: 'versions named while versioning is none',
    patch: { versioning: whole({ none: 'One version forever.' }) },
    expect: [`version-unknown ${DUE}/since`, `version-unknown ${DUE}/until`, 'version-unknown /events/catalog/task.finished/since'],
    messages: [/not a declared version \(none\)/],
  },
  { name: 'not checked while versioning is a gap', patch: { versioning: undefined }, expect: [] },
]);

table('since-after-until', [
  { name: 'a field since a later version than until', patch: { resources: { task: { fields: { dueOn: { since: '2', until: '1' } } } } }, expect: [`since-after-until ${DUE}/since`], messages: [/exists since version '2' but only until version '1'/] },
  { name: 'an event', patch: { events: { catalog: { 'task.finished': { until: '1' } } } }, expect: ['since-after-until /events/catalog/task.finished/since'] },
  { name: 'one version only', patch: { resources: { task: { fields: { dueOn: { since: '2', until: '2' } } } } }, expect: [] },
]);
