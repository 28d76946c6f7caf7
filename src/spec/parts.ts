/**
 * The nine parts of a service interface specification, always in this order.
 * The titles are the section headings of the founding document
 * (shared/seeds/000_a7ef063def403b81.txt); the Markdown loader and the document
 * renderer both use them, so a rendered document loads back.
 */
export const PART_NAMES = [
  'purpose',
  'resources',
  'states',
  'endpoints',
  'authentication',
  'events',
  'errors',
  'limits',
  'versioning',
] as const;

export type PartName = (typeof PART_NAMES)[number];

export interface PartInfo {
  readonly name: PartName;
  readonly number: number;
  /** Section heading in the Markdown layout. */
  readonly title: string;
  /** What the part must say, in the founding document's words. */
  readonly asks: string;
}

export const PARTS: readonly PartInfo[] = [
  { name: 'purpose', number: 1, title: 'What the service does', asks: "The service's purpose, its users and the tasks they perform." },
  { name: 'resources', number: 2, title: 'Resources and their fields', asks: 'Resources handled by the service; field names, types, formats, required flags and allowed values.' },
  { name: 'states', number: 3, title: 'States and transitions', asks: 'States of any resource and the transitions between them.' },
  { name: 'endpoints', number: 4, title: 'Endpoints', asks: 'Operations of the service, with method, path shape and payload shape, under {base_url}.' },
  { name: 'authentication', number: 5, title: 'Authentication', asks: 'The authentication scheme, how credentials are obtained, and the names of credential headers or parameters.' },
  { name: 'events', number: 6, title: 'Events', asks: 'Events, notifications or callbacks emitted by the service.' },
  { name: 'errors', number: 7, title: 'Errors', asks: 'Error codes, status codes used by the service and the error body shape.' },
  { name: 'limits', number: 8, title: 'Limits', asks: 'Rate limits, size limits, time-outs, pagination bounds and defaults.' },
  { name: 'versioning', number: 9, title: 'Versioning', asks: 'How the service identifies its version and how versions are selected or retired.' },
];

export const PART_BY_NAME: Readonly<Record<PartName, PartInfo>> = Object.fromEntries(
  PARTS.map((p) => [p.name, p]),
) as Record<PartName, PartInfo>;

export function isPartName(value: string): value is PartName {
  return (PART_NAMES as readonly string[]).includes(value);
}
