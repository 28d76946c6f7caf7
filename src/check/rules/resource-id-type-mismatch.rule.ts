import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { FieldType, IdAssignment } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { TYPE_WORDS } from './support.ts';

const mismatch = defineDiagnostic({
  code: 'resource-id-type-mismatch',
  severity: 'error',
  part: 'resources',
  message: "The id of '{resource}' is assigned as '{assigned}', which gives {expected}, but its field '{field}' is {actual}.",
  description: 'How ids are assigned fixes their type: `uuid` ids are text, `sequence` ids are whole numbers, `client` ids are text or whole numbers. Change the id field\'s `type`, or the assignment.',
});

const ALLOWED: Readonly<Record<IdAssignment, readonly FieldType[]>> = {
  uuid: ['string'],
  sequence: ['integer'],
  client: ['string', 'integer'],
  service: ['string'],
};

const EXPECTED: Readonly<Record<IdAssignment, string>> = {
  uuid: 'text (a UUID)',
  sequence: 'whole numbers',
  client: 'text or whole numbers',
  service: 'text',
};

export default defineRule({
  name: 'resource-id-type-mismatch',
  diagnostics: [mismatch],
  resource(resource, ctx) {
    if (!resource.id) return;
    const field = ctx.index.fields.get(resource.name)?.get(resource.id.field);
    if (!field || ALLOWED[resource.id.assigned].includes(field.type)) return;
    ctx.report(mismatch, {
      resource: resource.name, assigned: resource.id.assigned, expected: EXPECTED[resource.id.assigned], field: field.name, actual: TYPE_WORDS[field.type],
    }, child(field.pointer, 'type'));
  },
});
