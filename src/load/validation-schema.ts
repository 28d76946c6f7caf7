/**
 * The schema a loaded document is validated against: the format's, each part's `{ none }`
 * alternative taken out (the loader handles it first). Apart from validate.ts so that the
 * generator of its validator (scripts/gen/format-validator.ts) does not load the validator.
 */
import { FORMAT_SCHEMA } from '../spec/format-schema.ts';
import { PART_NAMES } from '../spec/parts.ts';

type Schema = Record<string, unknown>;

/** The published schema allows `{ none: reason }` for each part; the loader takes `none` out first. */
export function validationSchema(): Schema {
  const schema = structuredClone(FORMAT_SCHEMA) as unknown as Schema;
  const properties = schema.properties as Record<string, Schema>;
  for (const part of PART_NAMES) {
    const alternatives = properties[part].anyOf as Schema[];
    const { anyOf: _anyOf, ...rest } = properties[part];
    properties[part] = { ...rest, ...alternatives[1] };
  }
  return schema;
}

/** Ajv's options for the format schema, with which its validator is generated. */
export const FORMAT_VALIDATOR_OPTIONS = { allErrors: true, verbose: true, strict: false, allowUnionTypes: true } as const;

