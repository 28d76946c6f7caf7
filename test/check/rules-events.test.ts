/** Rules of part 6, events: a row per finding, and near misses that must stay silent. */
import { table } from './table.ts';

const events = (value: Record<string, unknown>) => ({ events: value });
const on = (event: string, trigger: string) => events({ catalog: { [event]: { on: trigger } } });
const C = '/events/catalog';

table('event-trigger-invalid', [
  { name: 'a trigger without an action', patch: on('project.created', 'project'), expect: [`event-trigger-invalid ${C}/project.created/on`] },
  { name: 'a trigger ending in a dot', patch: on('project.created', 'project.'), expect: [`event-trigger-invalid ${C}/project.created/on`] },
  { name: 'a trigger without a resource', patch: on('project.created', '.created'), expect: [`event-trigger-invalid ${C}/project.created/on`] },
]);

table('event-trigger-unknown-resource', [
  { name: 'a trigger on an undeclared resource', patch: on('project.created', 'projct.created'), expect: [`event-trigger-unknown-resource ${C}/project.created/on`], messages: [/Did you mean 'project'\?/] },
]);

table('event-trigger-unknown-transition', [
  { name: 'a misspelt transition', patch: on('task.finished', 'task.finsh'), expect: [`event-trigger-unknown-transition ${C}/task.finished/on`], messages: [/'finsh' is neither created, updated, deleted nor a transition of 'task' \('finish', 'archive'\)\. Did you mean 'finish'\?/] },
  { name: 'an action in the wrong tense', patch: on('project.created', 'project.create'), expect: [`event-trigger-unknown-transition ${C}/project.created/on`], messages: [/\(it has none\)\. Did you mean 'created'\?/] },
]);

table('event-trigger-no-endpoint', [
  { name: 'a deleted event without a delete endpoint', patch: on('task.deleted', 'task.deleted'), expect: [`event-trigger-no-endpoint ${C}/task.deleted/on`], messages: [/'task' has no delete endpoint/] },
  { name: 'an updated event follows update', patch: on('task.updated', 'task.updated'), expect: [] },
]);

table('event-payload-unknown-field', [
  { name: 'a payload naming no field', patch: events({ catalog: { 'task.finished': { payload: ['id', 'stats'] } } }), expect: [`event-payload-unknown-field ${C}/task.finished/payload/1`], messages: [/Did you mean 'status'\?/] },
]);

table('event-payload-writeonly-field', [
  { name: 'a payload with a writeOnly field', patch: events({ catalog: { 'task.finished': { payload: ['id', 'secret'] } } }), expect: [`event-payload-writeonly-field ${C}/task.finished/payload/1`] },
]);

table('event-no-delivery', [
  { name: 'events with no way to deliver them', patch: events({ webhooks: undefined, stream: undefined, retry: undefined }), expect: ['event-no-delivery /events/catalog'] },
  { name: 'a stream alone delivers', patch: events({ webhooks: undefined, retry: undefined }), expect: [] },
]);

table('event-webhook-path-missing', [
  { name: 'subscriptions through the API without a path', patch: events({ webhooks: { path: undefined } }), expect: ['event-webhook-path-missing /events/webhooks/subscriptions'] },
  { name: 'subscriptions configured by the operator', patch: events({ webhooks: { path: undefined, subscriptions: 'config' } }), expect: [] },
]);

table('event-path-collides-endpoint', [
  { name: 'a stream on an endpoint path', patch: events({ stream: { path: '/tasks' } }), expect: ['event-path-collides-endpoint /events/stream/path'] },
  { name: 'subscriptions on an endpoint path', patch: events({ webhooks: { path: '/projects/{id}' } }), expect: ['event-path-collides-endpoint /events/webhooks/path'] },
]);

table('event-retry-without-webhooks', [
  { name: 'a retry policy with only a stream', patch: events({ webhooks: undefined }), expect: ['event-retry-without-webhooks /events/retry'] },
]);

table('event-retry-delay-inverted', [
  { name: 'a first delay above the longest', patch: events({ retry: { initialDelay: '2m' } }), expect: ['event-retry-delay-inverted /events/retry/initialDelay'], messages: [/The first retry waits 2m, longer than the longest delay between attempts \(1m\)\./] },
]);
