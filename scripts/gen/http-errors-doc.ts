/** docs/http-errors.md: the situations the runtime answers with an error, and the safety defaults. */
import { SAFETY_DEFAULTS } from '../../src/spec/defaults.ts';
import { HTTP_ERRORS } from '../../src/spec/http-errors.ts';
import { code, document, generatedNotice, table } from './markdown.ts';

const INTRO = `Besides the errors a service's own logic raises, the runtime itself refuses requests in a few
situations: a body that is not JSON, a missing credential, a record in the wrong state for a
transition, and so on. Each situation has the status the strict reading of the HTTP RFCs gives
it. Error bodies have the shape of the spec's \`errors.shape\`: RFC 9457
\`application/problem+json\` with a \`code\` member by default.`;

const MAPPING = `## Mapping a situation to the spec's own code

A spec answers a situation with a code of its own errors catalog in one of two ways:

- **by name**: a catalog code named after the situation answers it, without saying so
  (\`not-found: {status: 404, title: Not found}\`);
- **with \`for\`**: any code answers the situation it names with \`for: <situation>\`
  (\`no-such-book: {status: 404, title: No such book, for: not-found}\`).

Where the spec's catalog has no code for a situation, the runtime answers with the situation's
name as the code, and the status and title below.`;

export function renderHttpErrorsDoc(): string {
  const errors = HTTP_ERRORS.map((e) => [code(e.situation), String(e.status), e.title, e.when, e.rfc]);
  const defaults = SAFETY_DEFAULTS.map((d) => [code(d.part), code(d.key), d.value, d.why]);
  return document([
    '# HTTP errors and safety defaults',
    generatedNotice(['src/spec/http-errors.ts', 'src/spec/defaults.ts']),
    INTRO,
    `## Situations\n\n${table(['Situation', 'Status', 'Title', 'When', 'RFC'], errors)}`,
    MAPPING,
    `## Safety defaults

Where a spec is silent and something must still hold (a body size cap, a time-out, a bound on
pages), the runtime applies one of these values. \`svcspec check\` lists the ones that apply to a
spec, as defaults and never as the spec's own values. Domain values are never defaulted.

${table(['Part', 'Key', 'Value', 'Why'], defaults)}`,
  ]);
}
