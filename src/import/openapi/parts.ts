/**
 * Part 1 from `info`, and what the import says about the parts OpenAPI cannot give:
 * states, events, limits and versioning are gaps, each reported with what the document does
 * show that bears on it (an enum that may hold states, webhooks, paging parameters,
 * info.version), so the author knows where to start. Nothing of it is written as the part.
 */
import type { Purpose, Resource } from '../../spec/model.ts';
import { PART_BY_NAME, type PartName } from '../../spec/parts.ts';
import { child } from '../../spec/pointer.ts';
import { defined } from '../../load/normalize/read.ts';
import { IMPORT_CODES } from '../codes.ts';
import { isObject, report, resolve, type ImportContext } from './context.ts';
import { listOf, type Operation } from './resources.ts';

export function importPurpose(ctx: ImportContext): Purpose {
  const info = isObject(ctx.doc.info) ? ctx.doc.info : {};
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const summary = [text(info.summary), text(info.description)].filter(Boolean).join('\n\n') || undefined;
  report(ctx, IMPORT_CODES.purposeUsers, {}, '/info');
  return defined({ name: text(info.title), summary, users: [] });
}

/** Reports a part as a gap: `why` says what the document shows (or why the part could not be read). */
export function reportGap(ctx: ImportContext, part: PartName, why: string, at: string): void {
  const { number, title } = PART_BY_NAME[part];
  report(ctx, IMPORT_CODES.partGap, { number, title, why }, at, part);
}

const PAGING = /^(limit|offset|page|pages?ize|page_size|per_?page|size|cursor|after|before|start|max_?results|page_?token|next)$/i;
const RATE = /rate.?limit|retry-after/i;

export function reportUnsayableParts(ctx: ImportContext, resources: readonly Resource[], ops: readonly Operation[], paginated = false): void {
  // 3. states: an enum named like a state may hold them, but no transition is said.
  const enums = resources.flatMap((r) => r.fields.filter((f) => /^(status|state|phase|stage)$/i.test(f.name) && f.enum).map((f) => `${r.name}.${f.name}`));
  reportGap(ctx, 'states', `OpenAPI has no states nor transitions${enums.length ? ` (the values of ${listOf(enums, 4)} may be states; which moves are allowed, and how, is not said)` : ''}`, '');

  // 6. events: webhooks (3.1) and callbacks name requests the service sends, not what triggers them.
  const webhooks = isObject(ctx.doc.webhooks) ? Object.keys(ctx.doc.webhooks) : [];
  const callbacks = ops.filter((op) => isObject(op.node.callbacks)).length;
  const shown = [webhooks.length ? `webhooks (${listOf(webhooks, 4)})` : '', callbacks ? `callbacks on ${callbacks} operation${callbacks === 1 ? '' : 's'}` : ''].filter(Boolean);
  reportGap(ctx, 'events', `OpenAPI has no event catalog${shown.length ? `; the document's ${shown.join(' and ')} do not say what triggers them, nor how they are signed and retried` : ''}`, webhooks.length ? '/webhooks' : '');

  // 8. limits: paging parameters and rate-limit headers show that limits exist, not their values.
  const params = new Set<string>();
  const headers = new Set<string>();
  let firstAt = '';
  for (const op of ops) {
    const list = [...op.shared, ...(Array.isArray(op.node.parameters) ? op.node.parameters : [])];
    list.forEach((p, i) => {
      const r = resolve(ctx, p, child(op.pointer, 'parameters', i));
      if (r && r.node.in === 'query' && typeof r.node.name === 'string' && PAGING.test(r.node.name)) {
        params.add(r.node.name);
        firstAt ||= r.pointer;
      }
    });
    for (const [status, value] of Object.entries(isObject(op.node.responses) ? op.node.responses : {})) {
      const r = resolve(ctx, value, child(op.pointer, 'responses', status));
      for (const h of Object.keys(r && isObject(r.node.headers) ? r.node.headers : {})) {
        if (RATE.test(h)) {
          headers.add(h);
          firstAt ||= child(r!.pointer, 'headers', h);
        }
      }
    }
  }
  const seen = [params.size ? `the query parameters ${listOf([...params], 4)}` : '', headers.size ? `the headers ${listOf([...headers], 4)}` : ''].filter(Boolean);
  // With the pagination read from the lists (./pagination.ts), the part is given; the rest of it is unsaid.
  if (!paginated) reportGap(ctx, 'limits', `it states no rate, size, time-out or pagination limits${seen.length ? ` (it names ${seen.join(' and ')}, but not the values the format needs: style, default and largest page, limits per window)` : ''}`, firstAt);

  // 9. versioning: info.version is the document's version, not how clients select one.
  const info = isObject(ctx.doc.info) ? ctx.doc.info : {};
  const version = typeof info.version === 'string' ? info.version : undefined;
  reportGap(ctx, 'versioning', `${version !== undefined ? `info.version ('${version}') is the document's own version; ` : ''}how a client selects a version, and which versions are deprecated or retired, is not said`, version !== undefined ? '/info/version' : '/info');
}
