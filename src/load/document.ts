/**
 * From a parsed document (YAML, JSON, or the parts gathered from a Markdown file) to the
 * Spec: which parts are stated, structural validation, normalization.
 */
import { diagnostic, type Diagnostic, type Result } from '../spec/diagnostics.ts';
import type { PartState, PartStatement, Spec } from '../spec/model.ts';
import { PART_NAMES, isPartName, type PartName } from '../spec/parts.ts';
import { pointer } from '../spec/pointer.ts';
import { LOAD_CODES, SUPPORTED_FORMAT_VERSIONS } from './codes.ts';
import { normalize } from './normalize/index.ts';
import { isRecord, str } from './normalize/read.ts';
import type { SourceMap } from './source.ts';
import { validateStructure } from './validate.ts';

/** What a Markdown section adds to a part: its prose, and whether its bullets say "not shown". */
export interface PartNote {
  readonly prose?: string;
  readonly notShown?: boolean;
}

export function statementOf(value: unknown): { statement: PartStatement; reason?: string } {
  if (value === undefined || value === null) return { statement: 'gap' };
  if (isRecord(value)) {
    if ('none' in value) return { statement: 'none', reason: str(value.none) ?? '' };
    if (Object.keys(value).length === 0) return { statement: 'gap' };
  }
  if (Array.isArray(value) && value.length === 0) return { statement: 'gap' };
  return { statement: 'given' };
}

export function specFromDocument(
  data: unknown,
  sourceMap: SourceMap,
  notes: Partial<Record<PartName, PartNote>> = {},
  sections?: {
    /** Top-level keys whose data passed the structural validation before (./sections.ts): not validated again. */
    readonly valid: ReadonlySet<string>;
    /** Told whether the structural validation of the rest passed. */
    validated(passed: boolean): void;
  },
): Result<Spec | undefined> {
  const diagnostics: Diagnostic[] = [];
  if (data === undefined || data === null) data = {};
  if (!isRecord(data)) {
    const actual = Array.isArray(data) ? 'a list' : `the ${typeof data} '${String(data)}'`;
    return { value: undefined, diagnostics: [diagnostic(LOAD_CODES.notAMap, { actual }, { pointer: '', location: sourceMap.locate('') })] };
  }
  const raw = data;

  const version = str(raw.svcspec);
  if (version === undefined && sourceMap.kind !== 'markdown') {
    diagnostics.push(diagnostic(LOAD_CODES.formatVersionMissing, {}, { pointer: '', location: sourceMap.locate('') }));
  } else if (version !== undefined && !(SUPPORTED_FORMAT_VERSIONS as readonly string[]).includes(version)) {
    diagnostics.push(diagnostic(LOAD_CODES.formatVersionUnsupported, { version, supported: SUPPORTED_FORMAT_VERSIONS.join(', ') }, { pointer: '/svcspec', location: sourceMap.locate('/svcspec') }));
  }
  diagnostics.push(...partOrder(raw, sourceMap));

  const parts = {} as Record<PartName, PartState>;
  const forValidation: Record<string, unknown> = { ...raw };
  for (const name of PART_NAMES) {
    const note = notes[name];
    const { statement, reason } = note?.notShown ? { statement: 'gap' as const, reason: undefined } : statementOf(raw[name]);
    const p = pointer(name);
    parts[name] = { name, statement, pointer: p, ...(reason !== undefined ? { reason } : {}), ...(note?.prose ? { prose: note.prose } : {}) };
    if (statement === 'none') {
      const value = raw[name] as Record<string, unknown>;
      delete forValidation[name];
      if (typeof value.none !== 'string') {
        diagnostics.push(diagnostic(LOAD_CODES.wrongType, { where: `${name}.none`, expected: 'text (the reason)', actual: typeof value.none }, { pointer: `${p}/none`, location: sourceMap.locate(`${p}/none`) }));
      }
      if (Object.keys(value).length > 1) {
        diagnostics.push(diagnostic(LOAD_CODES.noneWithContent, { part: name }, { pointer: p, location: sourceMap.locateKey(p) }));
      }
    } else if (statement === 'gap') {
      delete forValidation[name];
    }
  }
  // The root of the format's schema constrains each top-level key alone: a section that passed stays passed.
  for (const key of sections?.valid ?? []) delete forValidation[key];
  const structural = validateStructure(forValidation, sourceMap);
  sections?.validated(structural.length === 0);
  diagnostics.push(...structural);
  return { value: normalize(raw, parts, sourceMap), diagnostics };
}

function partOrder(raw: Record<string, unknown>, sourceMap: SourceMap): Diagnostic[] {
  const present = Object.keys(raw).filter(isPartName);
  const out: Diagnostic[] = [];
  let highest = -1;
  for (const name of present) {
    const index = PART_NAMES.indexOf(name);
    if (index < highest) {
      out.push(diagnostic(LOAD_CODES.partOrder, { part: name, after: PART_NAMES[highest], order: PART_NAMES.join(', ') }, { pointer: pointer(name), location: sourceMap.locateKey(pointer(name)) }));
    }
    highest = Math.max(highest, index);
  }
  return out;
}
