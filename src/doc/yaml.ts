/**
 * A part's content as YAML for the document's blocks. The `yaml` library writes it; two
 * touches make it read like a hand-written spec: short lists and small maps of plain
 * values go on one line (`[create, read, list]`, `{field: id, assigned: uuid}`), and
 * response statuses are bare numbers (`200: resource`), which read back the same.
 */
import { Document, isMap, isPair, isScalar, isSeq, visit, type Node } from 'yaml';

const FLOW_WIDTH = 72;

export function toYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Pair(_key, pair, path) {
      const parent = path.at(-2);
      if (isPair(parent) && isScalar(parent.key) && parent.key.value === 'responses' && isScalar(pair.key) && typeof pair.key.value === 'string' && /^[1-5][0-9][0-9]$/.test(pair.key.value)) {
        pair.key.value = Number(pair.key.value);
      }
    },
    // The root stays a block map: it is what stands under the part's key.
    Seq(_key, seq, path) {
      if (path.length > 1 && fitsOnOneLine(seq)) seq.flow = true;
    },
    Map(_key, map, path) {
      if (path.length > 1 && map.items.length > 0 && map.items.length <= 4 && fitsOnOneLine(map)) map.flow = true;
    },
  });
  return doc.toString({ lineWidth: 100, flowCollectionPadding: false });
}

/** Plain scalars only, no line breaks, and short altogether. */
function fitsOnOneLine(node: Node): boolean {
  let width = 0;
  const scalars = isSeq(node) ? node.items : isMap(node) ? node.items.flatMap((p) => [p.key, p.value]) : [];
  for (const item of scalars) {
    if (!isScalar(item)) return false;
    const text = String(item.value);
    if (item.value === null || text.includes('\n') || typeof item.value === 'object') return false;
    width += text.length + 2;
  }
  return width <= FLOW_WIDTH;
}
