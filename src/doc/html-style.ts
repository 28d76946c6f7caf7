/** The page's only style sheet, inline: no external resources, readable on screen and on paper. */
export const HTML_STYLE = `
:root { --ink: #1d2330; --muted: #5b6475; --line: #d8dde6; --soft: #f4f6f9; --accent: #2356a8;
  --given: #1f7a3d; --none: #5b6475; --gap: #a45a00; --error: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, nav, main, footer { max-width: 72rem; margin: 0 auto; padding: 0 1.5rem; }
header { padding-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: 1rem; }
header h1 { margin: 0 0 .25rem; font-size: 2rem; }
header .summary { margin: .25rem 0; max-width: 48rem; }
header .meta { color: var(--muted); font-size: .9rem; }
nav { padding-top: 1rem; }
nav h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
nav ol { margin: 0; padding-left: 1.5rem; columns: 2; }
nav li { margin: .15rem 0; break-inside: avoid; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
section { border-top: 1px solid var(--line); margin-top: 2rem; padding-top: 1rem; }
section h2 { font-size: 1.5rem; margin: 0 0 .75rem; display: flex; gap: .75rem; align-items: baseline; flex-wrap: wrap; }
section h2 .number { color: var(--muted); }
h3 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
.badge { font-size: .75rem; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; padding: .1rem .5rem;
  border-radius: 999px; border: 1px solid currentColor; white-space: nowrap; }
.badge.given { color: var(--given); }
.badge.none { color: var(--none); }
.badge.gap { color: var(--gap); }
.prose { white-space: pre-line; }
.gap-note, .none-note { border-left: 4px solid var(--gap); background: var(--soft); padding: .5rem .75rem; }
.none-note { border-left-color: var(--none); }
table { border-collapse: collapse; width: 100%; margin: .75rem 0 1.25rem; font-size: .9rem; }
th, td { border: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--soft); }
.table-wrap { overflow-x: auto; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .75rem 0; }
dt { font-weight: 600; }
dd { margin: 0; }
code { font: .88em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--soft); padding: 0 .2em; border-radius: 3px; overflow-wrap: normal; word-break: normal; }
/* Identifiers and paths never break mid-word (no overflow-wrap: anywhere): a line breaks at spaces
   and after '/' as the Unicode line-breaking rules allow; a table too wide scrolls in its wrapper.
   Code without a space or '/' (an error code, <field>=<value>) is one word: no break after its '-' or '='. */
code.word { white-space: nowrap; }
.errors { border-left: 4px solid var(--error); background: #fdf0ef; padding: .5rem .75rem; margin: 1rem 0; }
.errors ul { margin: .25rem 0; padding-left: 1.25rem; }
.errors .code { color: var(--muted); font-size: .85em; }
details.source { margin: .75rem 0; }
details.source summary { cursor: pointer; color: var(--muted); font-size: .9rem; }
details.source pre { background: var(--soft); border: 1px solid var(--line); padding: .75rem; overflow-x: auto; }
details.source pre code { background: none; padding: 0; }
footer { color: var(--muted); font-size: .85rem; padding: 2rem 1.5rem; }
@media print {
  body { font-size: 11pt; }
  header, nav, main, footer { max-width: none; padding: 0; }
  nav ol { columns: 1; }
  a { color: inherit; }
  section { break-before: auto; }
  h2, h3 { break-after: avoid; }
  tr, dl { break-inside: avoid; }
  .table-wrap { overflow: visible; }
  details.source { display: none; }
}
`;
