/**
 * svcspec's own `x-svcspec-*` extensions: how a document svcspec exports (OpenAPI 3.1,
 * AsyncAPI 3.0) carries the spec it came from, and how `svcspec import` recognises one.
 * Export writes them, import reads them: one definition here, so the two cannot drift.
 *
 *   x-svcspec             {svcspec: <format version>, title?}: the mark of an exported document
 *   x-svcspec-<part>      each stated part in the authoring format (src/spec/serialize.ts),
 *                         `{none: reason}` for a part stated as none; a gap is left out
 *
 * Why whole parts: an OpenAPI document describes one version of the API as it is served and
 * has no words for states, events, limits, versions, nor for most of the format's
 * conventions (short-form endpoints, filters, expand, bulk, page styles); AsyncAPI describes
 * part 6 only. The extensions make the export a lossless carrier, so that `import` of an
 * export gives back the spec it came from, every version and part included.
 */
import type { Spec } from '../model.ts';
import { PART_NAMES, type PartName } from '../parts.ts';
import { toDocument, type RawDocument } from '../serialize.ts';

export const MARK = 'x-svcspec';

export function partExtension(part: PartName): string {
  return `${MARK}-${part}`;
}

/** The extensions of a document describing `parts` of the spec (all nine for OpenAPI, events for AsyncAPI). */
export function svcspecExtensions(spec: Spec, parts: readonly PartName[] = PART_NAMES): Record<string, unknown> {
  const doc = toDocument(spec);
  const mark: Record<string, unknown> = {};
  if (doc.svcspec !== undefined) mark.svcspec = doc.svcspec;
  if (doc.title !== undefined) mark.title = doc.title;
  const out: Record<string, unknown> = { [MARK]: mark };
  for (const part of parts) if (doc[part] !== undefined) out[partExtension(part)] = doc[part];
  return out;
}

export interface CarriedSpec {
  /** The spec in the authoring format: the mark's members and each part carried. */
  readonly document: RawDocument;
  /** The parts the document carries (the others are gaps, or were not described by it). */
  readonly parts: readonly PartName[];
}

/** The spec an exported document carries, or undefined when it has no `x-svcspec` mark. */
export function carriedSpec(doc: Readonly<Record<string, unknown>>): CarriedSpec | undefined {
  const mark = doc[MARK];
  if (typeof mark !== 'object' || mark === null || Array.isArray(mark)) return undefined;
  const document: RawDocument = { ...(mark as RawDocument) };
  const parts: PartName[] = [];
  for (const part of PART_NAMES) {
    const value = doc[partExtension(part)];
    if (value === undefined) continue;
    document[part] = value;
    parts.push(part);
  }
  return { document, parts };
}
