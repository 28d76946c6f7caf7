/** Rules of part 4, endpoints: a row per finding, and near misses that must stay silent. */
import { table, whole } from './table.ts';

const task = (value: Record<string, unknown>) => ({ endpoints: { task: value } });
const E = '/endpoints/task';
const PROJECT = ['create', 'read', 'update', 'delete', 'list'];

table('endpoint-unknown-resource', [
  { name: 'endpoints of an undeclared resource', patch: { endpoints: { projct: ['list'] } }, expect: ['endpoint-unknown-resource /endpoints/projct'], messages: [/Endpoints are declared for 'projct'.*Did you mean 'project'\?/] },
]);

table('endpoint-unknown-operation', [
  {
    name: 'a misspelt transition, written out',
    patch: task({ finsh: {} }),
    expect: [`endpoint-unknown-operation ${E}/finsh`],
    messages: [/'finsh' is not an operation of 'task': neither a standard operation \(create, read, update, replace, delete, list\) nor one of its transitions \('finish', 'archive'\)\. Did you mean 'finish'\?/],
  },
  { name: 'in the short form, on a resource without states', patch: { endpoints: { project: [...PROJECT, 'archive'] } }, expect: ['endpoint-unknown-operation /endpoints/project/5'], messages: [/transitions \(none declared\)/] },
  { name: 'a misspelt standard operation', patch: { endpoints: { project: [...PROJECT, 'lst'] } }, expect: ['endpoint-unknown-operation /endpoints/project/5'], messages: [/Did you mean 'list'\?/] },
  { name: 'a misspelt operation: member of a named entry', patch: task({ openTasks: { operation: 'lst', path: '/tasks/{id}/open' } }), expect: [`endpoint-unknown-operation ${E}/openTasks/operation`], messages: [/'lst' is not an operation of 'task'.*Did you mean 'list'\?/] },
]);

table('endpoint-duplicate-route', [
  { name: 'two endpoints on one path and method', patch: task({ archive: { path: '/tasks/{id}/finish' } }), expect: [`endpoint-duplicate-route ${E}/archive/path`], messages: [/'task.archive' answers POST \/tasks\/\{id\}\/finish, as 'task.finish' already does/] },
  { name: 'an operation listed twice', patch: { endpoints: { project: [...PROJECT, 'read'] } }, expect: ['endpoint-duplicate-route /endpoints/project/5'] },
  { name: 'the same path with another method', patch: task({ archive: { path: '/tasks/{id}/finish', method: 'PUT' } }), expect: [] },
]);

table('endpoint-operation-id-duplicate', [
  { name: 'two endpoints given one operationId', patch: task({ create: { operationId: 'makeTask' }, finish: { operationId: 'makeTask' } }), expect: [`endpoint-operation-id-duplicate ${E}/finish/operationId`], messages: [/'task.finish' is named 'makeTask' in an exported document, as 'task.create' is/] },
  { name: "an operationId taking another endpoint's default name", patch: task({ create: { operationId: 'task.finish' }, finish: {} }), expect: [`endpoint-operation-id-duplicate ${E}/finish`] },
  { name: 'distinct operationIds', patch: task({ create: { operationId: 'createTask' }, finish: { operationId: 'finishTask' } }), expect: [] },
]);

table('endpoint-page-not-list', [
  { name: 'a read stating a page body', patch: task({ read: { page: { items: 'task' } } }), expect: [`endpoint-page-not-list ${E}/read/page`], messages: [/'task.read' states a page body, but it is a read, which answers no pages/] },
  { name: 'near miss: a list stating its own', patch: task({ list: { page: { items: 'tasks', next: '/meta/next' } } }), expect: [] },
]);

table('endpoint-path-missing-id', [
  { name: 'a read without {id}', patch: task({ read: { path: '/tasks/current' } }), expect: [`endpoint-path-missing-id ${E}/read/path`] },
]);

table('endpoint-path-param-unbound', [
  { name: 'a parameter that binds nothing', patch: task({ read: { path: '/tasks/{id}/{version}' } }), expect: [`endpoint-path-param-unbound ${E}/read/path`], messages: [/parameter 'version', which binds nothing: it is not \{id\}, no ref field 'version' of task/] },
  { name: 'an {id} on a collection', patch: task({ list: { path: '/tasks/{id}/all' } }), expect: [`endpoint-path-param-unbound ${E}/list/path`], messages: [/'list' acts on the collection/] },
  { name: 'a declared parent that is no ref field', patch: task({ projectTasks: { operation: 'list', path: '/projects/{pid}/tasks', params: { pid: { ref: 'title' } } } }), expect: [`endpoint-path-param-unbound ${E}/projectTasks/params/pid`], messages: [/'title', which is not a ref field of task/] },
  { name: 'a {<field>Id} without such a ref field', patch: task({ projectTasks: { operation: 'list', path: '/projects/{ownerId}/tasks' } }), expect: [`endpoint-path-param-unbound ${E}/projectTasks/path`], messages: [/no ref field 'owner' of task/] },
  { name: 'near miss: a parent by the {<field>Id} convention', patch: task({ projectTasks: { operation: 'list', path: '/projects/{projectId}/tasks' } }), expect: [] },
  { name: 'near miss: a parent declared, and a value with a shape', patch: task({ projectTasks: { operation: 'list', path: '/projects/{p}/tasks/due/{day}', params: { p: { ref: 'project' }, day: { type: 'string', format: 'date' } } } }), expect: [] },
  { name: 'near miss: the record id under another name, declared', patch: task({ read: { path: '/task-numbers/{n}', params: { n: 'id' } } }), expect: [] },
]);

table('endpoint-param-not-in-path', [
  { name: 'a declared parameter the path lacks (misspelt)', patch: task({ projectTasks: { operation: 'list', path: '/projects/{projectId}/tasks', params: { projctId: { ref: 'project' } } } }), expect: [`endpoint-param-not-in-path ${E}/projectTasks/params/projctId`], messages: [/declares the parameter 'projctId' under params, but its path \/projects\/\{projectId\}\/tasks does not have it/] },
]);

table('endpoint-path-param-repeated', [
  { name: 'one name for two segments', patch: task({ read: { path: '/tasks/{id}/revisions/{id}' } }), expect: [`endpoint-path-param-repeated ${E}/read/path`], messages: [/names the parameter 'id' twice in its path \/tasks\/\{id\}\/revisions\/\{id\}/] },
  { name: 'near miss: the second named apart', patch: task({ read: { path: '/tasks/{id}/revisions/{revision}', params: { revision: { type: 'integer' } } } }), expect: [] },
]);

table('endpoint-route-ambiguous', [
  { name: 'one path, two names for its parameter', patch: task({ update: { path: '/tasks/{taskId}', params: { taskId: 'id' } } }), expect: [`endpoint-route-ambiguous ${E}/update/path`], messages: [/'task.update' \(\/tasks\/\{taskId\}\) and 'task.read' \(\/tasks\/\{id\}\)/] },
]);

table('endpoint-route-shadowed', [
  { name: 'a literal beside an {id} of the same method', patch: task({ current: { operation: 'read', path: '/tasks/current', params: {} } }), expect: [`endpoint-path-missing-id ${E}/current/path`, `endpoint-route-shadowed ${E}/current/path`], messages: [/GET \/tasks\/current \('task.current'\) shadows GET \/tasks\/\{id\} \('task.read'\)/] },
  { name: 'near miss: a declared singleton', patch: task({ mine: { operation: 'read', path: '/tasks/mine', select: 'caller' } }), expect: [] },
]);

table('endpoint-singleton-invalid', [
  { name: 'select: caller on a list', patch: task({ mineList: { operation: 'list', path: '/my-tasks', select: 'caller' } }), expect: [`endpoint-singleton-invalid ${E}/mineList/select`], messages: [/it is a list; only read, update and replace/] },
  {
    name: 'select: caller on a resource that is not owned',
    patch: { endpoints: { project: whole({ create: {}, read: {}, update: {}, delete: {}, list: {}, mine: { operation: 'read', path: '/my-project', select: 'caller' } }) } },
    expect: ['endpoint-singleton-invalid /endpoints/project/mine/select'],
    messages: [/records of project have no owner/],
  },
  { name: 'select: caller with an {id} in the path', patch: task({ mine: { operation: 'read', path: '/me/{id}', select: 'caller' } }), expect: [`endpoint-path-param-unbound ${E}/mine/path`], messages: [/selects the caller's own record, which needs no id/] },
]);


table('endpoint-transition-missing', [
  { name: 'a transition without endpoint', patch: task({ archive: undefined }), expect: ['endpoint-transition-missing /states/task/transitions/archive'] },
]);

table('endpoint-request-unknown-field', [
  { name: 'a request list naming no field', patch: task({ create: { request: ['title', 'titl'] } }), expect: [`endpoint-request-unknown-field ${E}/create/request/1`], messages: [/Did you mean 'title'\?/] },
]);

table('endpoint-request-readonly-field', [
  { name: 'a request list with a readOnly field', patch: task({ create: { request: ['title', 'status'] } }), expect: [`endpoint-request-readonly-field ${E}/create/request/1`] },
  { name: 'a transition requiring a readOnly field', patch: { states: { task: { transitions: { finish: { requires: ['status'] } } } } }, expect: ['endpoint-request-readonly-field /states/task/transitions/finish/requires/0'] },
]);

table('endpoint-error-undeclared', [
  { name: 'an error code not in the catalog', patch: task({ create: { errors: ['validation-faild'] } }), expect: [`endpoint-error-undeclared ${E}/create/errors/0`], messages: [/Did you mean 'validation-failed'\?/] },
  { name: 'not checked when the errors part is none', patch: { errors: whole({ none: 'Errors are plain status codes.' }), endpoints: { task: { create: { errors: ['validation-faild'] } } } }, expect: [] },
]);

table('endpoint-error-status-undeclared', [
  { name: 'an error response with a status no code has', patch: task({ finish: { responses: { 423: 'error' } } }), expect: [`endpoint-error-status-undeclared ${E}/finish/responses/423`] },
  { name: 'one status no code has, answered by two endpoints: said once, naming the other', patch: task({ finish: { responses: { 423: 'error' } }, archive: { path: '/tasks/{id}/archive', method: 'POST', responses: { 200: 'resource', 423: 'error' } } }), expect: [`endpoint-error-status-undeclared ${E}/finish/responses/423`], messages: [/'task.finish' \(and 'task.archive'\) answers 423/] },
]);

table('endpoint-no-success-response', [
  { name: 'only an error response', patch: task({ finish: { responses: { 200: undefined } } }), expect: [`endpoint-no-success-response ${E}/finish/responses`] },
]);

table('endpoint-get-changes-state', [
  { name: 'a transition on GET', patch: task({ archive: { method: 'GET' } }), expect: [`endpoint-get-changes-state ${E}/archive/method`] },
]);

table('endpoint-read-not-get', [
  { name: 'a read on POST', patch: task({ read: { method: 'POST' } }), expect: [`endpoint-read-not-get ${E}/read/method`] },
]);

table('endpoint-get-with-body', [
  { name: 'a list with a request body', patch: task({ list: { request: ['title'] } }), expect: [`endpoint-get-with-body ${E}/list/request`] },
  { name: 'a delete with a request body', patch: task({ delete: { request: 'resource' } }), expect: [`endpoint-get-with-body ${E}/delete/request`] },
]);

const taskList = (list: Record<string, unknown>) => ({ endpoints: { task: { list } } });

table('list-query-field-unknown', [
  { name: 'a filter on a misspelled field', patch: taskList({ query: { filters: { titel: ['prefix'] } } }), expect: ['list-query-field-unknown /endpoints/task/list/query/filters/titel'], messages: [/filters by 'titel', which is not a field of 'task'\. Did you mean 'title'\?/] },
  { name: 'a filter on a list field', patch: taskList({ query: { filters: { tags: ['eq'] } } }), expect: ['list-query-field-unknown /endpoints/task/list/query/filters/tags'], messages: [/is an array, not a single value/] },
  { name: 'a sort on the id', patch: taskList({ query: { sort: ['id'] } }), expect: ['list-query-field-unknown /endpoints/task/list/query/sort/0'] },
  { name: 'a search over a number', patch: taskList({ query: { search: { fields: ['title', 'priority'] } } }), expect: ['list-query-field-unknown /endpoints/task/list/query/search/fields/1'], messages: [/searches 'priority', which is an integer, not text/] },
  { name: 'filters and sorts that fit', patch: taskList({ query: { filters: { title: ['eq', 'prefix', 'contains'], priority: ['gte', 'lte', 'in'], status: ['eq', 'ne'], note: ['exists'] }, sort: ['priority', 'title'], style: 'colon' } }), expect: [] },
]);

table('list-query-operator-mismatch', [
  { name: 'a range on text', patch: taskList({ query: { filters: { title: ['eq', 'gte'] } } }), expect: ['list-query-operator-mismatch /endpoints/task/list/query/filters/title/1'], messages: [/'gte' orders numbers, dates and date-times, not text/] },
  { name: 'a prefix on a number', patch: taskList({ query: { filters: { priority: ['prefix'] } } }), expect: ['list-query-operator-mismatch /endpoints/task/list/query/filters/priority/0'], messages: [/'prefix' matches text, not a integer/] },
]);

table('list-query-not-a-list', [
  { name: 'a query on a read', patch: { endpoints: { task: { read: { query: { sort: ['title'] } } } } }, expect: ['list-query-not-a-list /endpoints/task/read/query'] },
]);
