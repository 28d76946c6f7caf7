/**
 * The codes a write can be refused with by the spec's domain rules (src/spec/domain/refusals.ts),
 * which the OpenAPI export lists among its error responses and `doc` in its Errors column.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainRefusals } from '../../src/spec/domain/refusals.ts';
import { mustLoad } from '../support/spec.ts';

const spec = mustLoad(`
svcspec: 1
purpose: {name: Shelf, summary: Lends books., users: [{name: keeper, tasks: [lend books]}]}
resources:
  author:
    plural: authors
    id: {field: id, assigned: uuid}
    fields: {id: {type: string, readOnly: true}, name: {type: string, required: true}}
  book:
    plural: books
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, readOnly: true}
      author: {type: ref, resource: author, required: true, onDelete: cascade}
      title: {type: string, required: true}
    unique: [{fields: [title], error: title-taken}]
  loan:
    plural: loans
    id: {field: id, assigned: uuid}
    fields:
      id: {type: string, readOnly: true}
      book: {type: ref, resource: book, required: true, onDelete: {refuse: book-on-loan}}
  profile:
    plural: profiles
    owned: true
    perOwner: one
    id: {field: id, assigned: uuid}
    fields: {id: {type: string, readOnly: true}, nick: {type: string, required: true}}
    onCreate:
      guards: [{rule: 'request.nick != "admin"', error: nick-reserved}]
states: {none: No life cycle.}
endpoints:
  author: [create, delete]
  book: [create, update, delete]
  loan: [create]
  profile:
    mine: {operation: replace, path: /me, select: caller}
authentication:
  schemes: {key: {type: apiKey, in: header, name: X-API-Key}}
events: {none: None.}
errors:
  shape: problem
  catalog:
    title-taken: {status: 409, title: Title taken}
    book-on-loan: {status: 409, title: Book on loan}
    nick-reserved: {status: 409, title: Nick reserved}
versioning: {none: One version.}
`);
const refusals = (id: string) => domainRefusals(spec, spec.endpoints.find((e) => e.id === id)!);

test('a delete answers the onDelete refuse of refs to it, and of refs to what it cascades to, at any depth', () => {
  assert.deepEqual(refusals('book.delete'), ['book-on-loan']);
  assert.deepEqual(refusals('author.delete'), ['book-on-loan'], 'an author\'s books cascade; a book on loan refuses');
});

test('a write of the record answers its uniques; a singleton replace that creates answers the create\'s guards', () => {
  assert.deepEqual(refusals('book.create'), ['title-taken']);
  assert.deepEqual(refusals('book.update'), ['title-taken']);
  assert.deepEqual(refusals('profile.mine'), ['nick-reserved']);
  assert.deepEqual(refusals('loan.create'), []);
});
