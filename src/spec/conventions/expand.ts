/**
 * The expansion convention of the format (`expand:` on a read or list endpoint), read by
 * serve, export and the tester alike (docs/format.md "Expansion"):
 *
 *   ?expand=book,member        each named ref field of the record (or of every item of a
 *                              page) holds the referenced record instead of its id, as a
 *                              read of it shows it (Stripe's style); a list of refs holds
 *                              a list of records
 *   ?expand=loan.book          a dotted path goes deeper, one ref per segment, at most
 *                              `expandDepth` segments (1 by default); the first segment is
 *                              one the endpoint declares, the later ones ref fields of the
 *                              record reached
 *   not readable               a referenced record the caller may not read (another
 *                              principal's, of an owned resource) or that no longer
 *                              exists stays its id: expansion never shows more than reads
 *   refused                    a name the endpoint does not declare, or a path deeper
 *                              than allowed: 422 validation-failed at `/query/expand`
 */
import type { ExpandDef, Field, Resource } from '../model.ts';

/** The query parameter. */
export const EXPAND_PARAM = 'expand';

/** One path to expand: the ref fields followed, from the record. */
export type ExpandPath = readonly string[];

export type ExpandRead = { readonly ok: true; readonly paths: readonly ExpandPath[] } | { readonly ok: false; readonly message: string };

/** The ref fields of a resource (a ref, or a list of refs), by name. */
export function refFields(resource: Resource): Field[] {
  return resource.fields.filter((f) => f.type === 'ref' || (f.type === 'array' && f.items?.type === 'ref'));
}

/** The resource a ref field points to. */
export function refTarget(field: Field): string | undefined {
  return field.type === 'ref' ? field.resource : field.items?.resource;
}

/**
 * Reads `?expand=` against the endpoint's declaration; `resources` looks a resource up by
 * name (for the segments after the first). An empty value expands nothing.
 */
export function readExpand(raw: string, def: ExpandDef | undefined, resource: Resource, resources: (name: string) => Resource | undefined): ExpandRead {
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length && !def) return { ok: false, message: 'this endpoint expands nothing' };
  const paths: ExpandPath[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const segments = name.split('.');
    if (def && segments.length > def.depth) {
      problems.push(`'${name}' goes ${segments.length} refs deep; this endpoint expands at most ${def.depth}`);
      continue;
    }
    let at: Resource | undefined = resource;
    for (const [i, segment] of segments.entries()) {
      const field: Field | undefined = at ? refFields(at).find((f) => f.name === segment) : undefined;
      if (i === 0 && !def?.fields.includes(segment)) {
        problems.push(`'${segment}' is not expandable here; expandable: ${def?.fields.join(', ')}`);
        at = undefined;
        break;
      }
      if (!field) {
        problems.push(`'${segments.slice(0, i + 1).join('.')}' is not a ref field${at ? ` of ${at.name}` : ''}`);
        at = undefined;
        break;
      }
      const target = refTarget(field);
      at = target ? resources(target) : undefined;
    }
    if (at) paths.push(segments);
  }
  if (problems.length) return { ok: false, message: problems.join('; ') };
  return { ok: true, paths };
}
