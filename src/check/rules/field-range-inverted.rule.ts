import { defineDiagnostic } from '../../spec/diagnostics.ts';
import type { Shape } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { eachShape, fieldLabel } from './support.ts';

const inverted = defineDiagnostic({
  code: 'field-range-inverted',
  severity: 'error',
  part: 'resources',
  message: "Field '{field}' of '{resource}' has {low} {lowValue} {relation} {high} {highValue}: no value satisfies both.",
  description: 'A lower bound above its upper bound (minimum and maximum, the exclusive bounds, minLength and maxLength, minItems and maxItems) leaves no valid value, so every request carrying the field is refused. Swap or correct the bounds.',
});

type Bound = 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems';

/** Lower bound, upper bound, and whether equal values already leave nothing (an exclusive bound takes part). */
const PAIRS: readonly (readonly [Bound, Bound, boolean])[] = [
  ['minimum', 'maximum', false],
  ['exclusiveMinimum', 'exclusiveMaximum', true],
  ['minimum', 'exclusiveMaximum', true],
  ['exclusiveMinimum', 'maximum', true],
  ['minLength', 'maxLength', false],
  ['minItems', 'maxItems', false],
];

function check(shape: Shape, report: (low: Bound, high: Bound, strict: boolean) => void): void {
  for (const [low, high, strict] of PAIRS) {
    const a = shape[low];
    const b = shape[high];
    if (a !== undefined && b !== undefined && (strict ? a >= b : a > b)) report(low, high, strict);
  }
}

export default defineRule({
  name: 'field-range-inverted',
  diagnostics: [inverted],
  field(field, resource, ctx, parents) {
    eachShape(field, fieldLabel(field, parents), (shape, label) => {
      check(shape, (low, high, strict) => ctx.report(inverted, {
        field: label, resource: resource.name, low, lowValue: shape[low], high, highValue: shape[high], relation: strict ? 'not below' : 'above',
      }, child(shape.pointer, low)));
    });
  },
});
