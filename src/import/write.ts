/**
 * The imported spec as text. YAML is written into the template `svcspec init` writes
 * (src/spec/template.ts), so every part keeps its explaining comment, a part the source did
 * not give stays `{}` (a gap), and under each part's comment the import notes what it could
 * not carry there. JSON has no comments: all nine parts, gaps as `{}`.
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { locationText, type Diagnostic } from '../spec/diagnostics.ts';
import { PART_NAMES, type PartName } from '../spec/parts.ts';
import type { RawDocument } from '../spec/serialize.ts';
import { NEW_SPEC } from '../spec/template.ts';

export interface ImportNotes {
  /** Where the spec came from, for the heading: `petstore.yaml (OpenAPI 3.0.0)`. */
  readonly source: string;
  readonly findings: readonly Diagnostic[];
}

/** Where the reason starts in an import-part-gap message. */
const GAP_WHY = 'written as a gap: ';

/** Notes shown under a part's comment; the rest are counted (the command prints them all). */
const NOTES_PER_PART = 12;
const WIDTH = 100;

/** All nine parts in order, a gap as `{}`: what the YAML and JSON outputs hold. */
export function withGaps(document: RawDocument): RawDocument {
  const out: RawDocument = { svcspec: document.svcspec ?? 1 };
  if (document.title !== undefined) out.title = document.title;
  for (const part of PART_NAMES) out[part] = document[part] ?? {};
  return out;
}

export function renderJson(document: RawDocument): string {
  return `${JSON.stringify(withGaps(document), null, 2)}\n`;
}

export function renderYaml(document: RawDocument, notes: ImportNotes): string {
  const doc = parseDocument(NEW_SPEC);
  const pairs = (doc.contents as unknown as { items: Pair<Node, Node>[] }).items;
  // The template's heading stands before its first key; the import's goes above it.
  const first = pairs[0].key as Node;
  first.commentBefore = [
    ...wrap(`Imported by 'svcspec import' from ${notes.source}. Nothing is supplied where the OpenAPI document is silent: such parts are gaps, and the notes under each part say what could not be carried.`).map((l) => ` ${l}`),
    '',
    first.commentBefore ?? '',
  ].join('\n');
  // The heading members: the format version the spec is written in, and its title.
  const version = pairs.find((p) => isScalar(p.key) && p.key.value === 'svcspec');
  if (version && document.svcspec !== undefined) version.value = doc.createNode(document.svcspec) as Node;
  if (document.title !== undefined && version) pairs.splice(pairs.indexOf(version) + 1, 0, doc.createPair('title', document.title) as Pair<Node, Node>);
  for (const part of PART_NAMES) {
    const pair = pairs.find((p) => isScalar(p.key) && p.key.value === part);
    if (!pair) continue;
    const content = document[part];
    const given = content !== undefined;
    if (given) pair.value = flowStyled(doc, doc.createNode(content) as Node, 0);
    const lines = partNotes(part, given, notes.findings);
    if (lines.length) {
      const key = pair.key as Node;
      key.commentBefore = [key.commentBefore ?? '', ...lines.map((l) => (l ? ` ${l}` : ''))].join('\n');
    }
  }
  return doc.toString({ lineWidth: 0 });
}

function partNotes(part: PartName, given: boolean, findings: readonly Diagnostic[]): string[] {
  const mine = findings.filter((f) => f.part === part && f.severity !== 'info' && !(given === false && f.code === 'import-part-gap'));
  const gap = findings.find((f) => f.part === part && f.code === 'import-part-gap');
  const lines: string[] = [];
  if (!given) lines.push(...wrap(`A gap: ${gap ? gap.message.slice(gap.message.indexOf(GAP_WHY) + GAP_WHY.length) : 'not in the OpenAPI document.'}`));
  for (const f of mine.slice(0, NOTES_PER_PART)) lines.push(...wrap(`- ${f.message}${f.location ? ` (${locationText(f.location)})` : ''}`, '  '));
  if (mine.length > NOTES_PER_PART) lines.push(`- ... and ${mine.length - NOTES_PER_PART} more notes: see the output of 'svcspec import'.`);
  return lines;
}

function wrap(text: string, indent = ''): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > WIDTH) {
      out.push(line);
      line = indent + word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/**
 * Short maps and lists of plain values are written on one line (`{type: string, maxLength: 80}`),
 * as the examples are; the parts themselves and anything long stay in block style.
 */
function flowStyled(doc: Document, node: Node, depth: number): Node {
  if (!isMap(node) && !isSeq(node)) return node;
  const children: Node[] = isMap(node) ? node.items.map((p) => p.value as Node) : (node.items as Node[]);
  let flat = true;
  for (const c of children) {
    if (c && (isMap(c) || isSeq(c))) flat = (flowStyled(doc, c, depth + 1) as { flow?: boolean }).flow === true && flat;
    else if (isScalar(c) && typeof c.value === 'string' && c.value.includes('\n')) flat = false;
  }
  if (depth >= 1 && flat && JSON.stringify(node.toJSON()).length <= 90) node.flow = true;
  return node;
}
