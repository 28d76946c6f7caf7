/**
 * The document as a list of nine sections, one per part, in order: what both renderers
 * write. A section carries the author's prose, the human-only blocks derived from the
 * part, and the part's content in the format (the yaml block). Nothing is invented: a
 * gap says "not shown" with what the part would state, `none` gives its reason.
 */
import type { PartStatement, Spec } from '../spec/model.ts';
import { PARTS, type PartInfo } from '../spec/parts.ts';
import { partContent } from '../spec/serialize.ts';
import { paragraph, specText, strong, type Block } from './blocks.ts';
import { PART_BLOCKS } from './parts/index.ts';

const NOT_SHOWN = /\bnot shown\b/i;

export interface Section {
  readonly part: PartInfo;
  readonly statement: PartStatement;
  readonly reason?: string;
  /** The author's Markdown, written as is. */
  readonly prose?: string;
  /** Human-only content derived from the part: the generated region. */
  readonly blocks: readonly Block[];
  /** The part's content in the format, for the yaml block; undefined for a gap. */
  readonly content: unknown;
}

/** How each statement is labelled in the contents and the badges. */
export const STATEMENT_LABEL: Readonly<Record<PartStatement, string>> = { given: 'given', none: 'none', gap: 'not shown' };

export function documentSections(spec: Spec): Section[] {
  return PARTS.map((part) => {
    const state = spec.parts[part.name];
    return {
      part,
      statement: state.statement,
      ...(state.reason !== undefined ? { reason: state.reason } : {}),
      ...(state.prose ? { prose: state.prose } : {}),
      blocks: state.statement === 'given' ? PART_BLOCKS[part.name](spec)
        : state.statement === 'none' ? [noneBlock(state.reason)]
        // The author's prose may say "not shown" already, in the founding document's words.
        : NOT_SHOWN.test(state.prose ?? '') ? []
        : [gapBlock(part)],
      content: partContent(spec, part.name),
    };
  });
}

/** The founding document's wording: "- The service's purpose: not shown." */
export function gapBlock(part: PartInfo): Block {
  return paragraph(`${part.asks.replace(/\.$/, '')}: not shown.`);
}

function noneBlock(reason: string | undefined): Block {
  return reason ? paragraph(strong('Does not apply.'), ' ', ...specText(reason)) : paragraph(strong('Does not apply.'));
}

/** The name a reader knows the service by. */
export function displayTitle(spec: Spec): string {
  return spec.title ?? spec.purpose.name ?? 'Service interface specification';
}

export function statementCounts(sections: readonly Section[]): Record<PartStatement, number> {
  const counts = { given: 0, none: 0, gap: 0 };
  for (const s of sections) counts[s.statement] += 1;
  return counts;
}
