/** Rules of the open surface (issue #13): actions, bulk creates, expansion. */
import { table } from './table.ts';

const task = (value: Record<string, unknown>) => ({ endpoints: { task: value } });
const E = '/endpoints/task';
const with501 = { errors: { catalog: { 'not-implemented': { status: 501, title: 'Not implemented' } } } };
const remind = { operation: 'action', path: '/tasks/{id}/remind', behaviour: 'Sends the owner a reminder.' };

table('action-behaviour-prose', [
  { name: 'a prose action is a note for builders', patch: { ...task({ remind }), ...with501 }, expect: [`action-behaviour-prose ${E}/remind/behaviour`], messages: [/The reference cannot perform 'task\.remind': its behaviour is stated in prose/] },
  { name: 'an action on the collection, its own shapes', patch: { ...task({ estimate: { operation: 'action', path: '/tasks/estimate', request: { fields: { size: { type: 'integer', required: true } } }, response: { fields: { days: { type: 'number' } } }, behaviour: 'Estimates.' } }), ...with501 }, expect: [`action-behaviour-prose ${E}/estimate/behaviour`] },
  // The reference performs a record action by its effects: its behaviour describes it, no 501 (and no 501 code needed).
  { name: 'near miss: an action that states effects', patch: task({ bump: { operation: 'action', path: '/tasks/{id}/bump', behaviour: 'Raises the priority to the top.', effects: [{ set: { priority: '5' } }] } }), expect: [] },
]);

table('action-behaviour-missing', [
  { name: 'an action that does not say what it does', patch: { ...task({ remind: { operation: 'action' } }), ...with501 }, expect: [`action-behaviour-missing ${E}/remind`], messages: [/Action 'task\.remind' does not say what it does/] },
  // Its effects say what it does, and the reference performs them (a walk found this warned).
  { name: 'near miss: an action of effects alone', patch: task({ bump: { operation: 'action', path: '/tasks/{id}/bump', effects: [{ set: { priority: '5' } }] } }), expect: [] },
]);

table('action-without-501', [
  { name: 'a prose action, and no 501 in the catalog', patch: task({ remind }), expect: [`action-behaviour-prose ${E}/remind/behaviour`, 'action-without-501 /errors/catalog'] },
]);

table('bulk-max-missing', [
  { name: 'a bulk create without max', patch: task({ import: { operation: 'bulk-create' } }), expect: [`bulk-max-missing ${E}/import`], messages: [/Bulk endpoint 'task\.import' does not say how many items/] },
  { name: 'with max: silent', patch: task({ import: { operation: 'bulk-create', max: 50 } }), expect: [] },
  { name: 'a bulk update without max', patch: task({ renameAll: { operation: 'bulk-update' } }), expect: [`bulk-max-missing ${E}/renameAll`] },
  { name: 'a bulk delete without max', patch: task({ purge: { operation: 'bulk-delete' } }), expect: [`bulk-max-missing ${E}/purge`] },
  { name: 'a bulk update and delete with max: silent', patch: task({ renameAll: { operation: 'bulk-update', max: 10 }, purge: { operation: 'bulk-delete', max: 10 } }), expect: [] },
]);

table('expand-not-ref', [
  { name: 'expanding a field that holds no ref', patch: task({ read: { expand: ['project', 'title'] } }), expect: [`expand-not-ref ${E}/read/expand/1`], messages: [/expand 'title', which is not a ref field of 'task' \(its ref fields: 'project', 'related'\)/] },
  { name: 'refs and lists of refs: silent', patch: task({ read: { expand: ['project', 'related'] }, list: { expand: ['project'], expandDepth: 2 } }), expect: [] },
]);

table('expand-not-read', [
  { name: 'expand on a create', patch: task({ create: { expand: ['project'] } }), expect: [`expand-not-read ${E}/create/expand`] },
]);

table('endpoint-path-param-unbound', [
  { name: 'an {id} on a bulk create', patch: task({ import: { operation: 'bulk-create', max: 5, path: '/tasks/{id}/bulk' } }), expect: [`endpoint-path-param-unbound ${E}/import/path`] },
  { name: 'an {id} on a bulk delete', patch: task({ purge: { operation: 'bulk-delete', max: 5, path: '/tasks/{id}/bulk-delete' } }), expect: [`endpoint-path-param-unbound ${E}/purge/path`] },
]);
