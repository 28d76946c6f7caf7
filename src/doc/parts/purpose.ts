import type { Spec } from '../../spec/model.ts';
import { heading, list, paragraph, paragraphs, strong, type Block } from '../blocks.ts';

export function purposeBlocks(spec: Spec): Block[] {
  const { name, summary, users } = spec.purpose;
  return [
    ...(name !== undefined ? [paragraph(strong(name))] : []),
    ...paragraphs(summary),
    ...users.flatMap((u) => [
      heading('User: ', strong(u.name)),
      ...paragraphs(u.description),
      ...(u.tasks.length ? [list(u.tasks.map((t) => [t]))] : []),
    ]),
  ];
}
