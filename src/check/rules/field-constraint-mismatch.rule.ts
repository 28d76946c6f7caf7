import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { FieldType, Shape } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel, TYPE_WORDS } from './support.ts';

const mismatch = defineDiagnostic({
  code: 'field-constraint-mismatch',
  severity: 'warning',
  part: 'resources',
  message: "Field '{field}' of '{resource}' is {type}, but '{constraint}' applies only to {applies}, so it has no effect here.",
  description: 'Each constraint applies to some types only: format, minLength, maxLength and pattern to text (the formats int32, int64, float and double to numbers); minimum, maximum, the exclusive bounds and multipleOf to numbers; minItems, maxItems, uniqueItems and items to lists; properties to maps; resource to refs. A constraint on another type is ignored by validators, which is rarely what was meant. Correct the type or remove the constraint.',
});

const TEXT: readonly FieldType[] = ['string'];
const NUMBERS: readonly FieldType[] = ['integer', 'number'];
const LISTS: readonly FieldType[] = ['array'];

const APPLIES: Readonly<Partial<Record<keyof Shape, readonly FieldType[]>>> = {
  format: TEXT, minLength: TEXT, maxLength: TEXT, pattern: TEXT,
  minimum: NUMBERS, maximum: NUMBERS, exclusiveMinimum: NUMBERS, exclusiveMaximum: NUMBERS, multipleOf: NUMBERS,
  minItems: LISTS, maxItems: LISTS, uniqueItems: LISTS, items: LISTS,
  properties: ['object'],
  resource: ['ref'],
};

const CONSTRAINTS = Object.entries(APPLIES) as [keyof Shape, readonly FieldType[]][];

/** What a constraint applies to, in words. */
function appliesWords(types: readonly FieldType[]): string {
  if (types === NUMBERS) return 'numbers';
  return types.map((t) => ({ string: 'text', array: 'lists', object: 'maps', ref: 'refs' } as Record<string, string>)[t] ?? t).join(' and ');
}

/** The formats of ajv-formats that check numbers rather than text. */
const NUMBER_FORMATS: ReadonlySet<string> = new Set(['int32', 'int64', 'float', 'double']);

function appliesTo(constraint: keyof Shape, shape: Shape, types: readonly FieldType[]): readonly FieldType[] {
  return constraint === 'format' && NUMBER_FORMATS.has(shape.format ?? '') ? NUMBERS : types;
}

export default defineRule({
  name: 'field-constraint-mismatch',
  diagnostics: [mismatch],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      for (const [constraint, all] of CONSTRAINTS) {
        const types = appliesTo(constraint, shape, all);
        if (shape[constraint] === undefined || types.includes(shape.type)) continue;
        ctx.report(mismatch, {
          field: label, resource: resource.name, type: TYPE_WORDS[shape.type], constraint: constraint === 'format' ? `format: ${shape.format}` : constraint, applies: appliesWords(types),
        }, child(shape.pointer, constraint), { key: true });
      }
    });
  },
});
