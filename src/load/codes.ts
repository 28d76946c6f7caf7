/**
 * Diagnostics of the loaders: reading, parsing and the structure of the format.
 * Together with the rules' own definitions (src/check/rules) they form the one
 * catalog (src/check/catalog.ts), from which docs/diagnostics.md is generated.
 */
import { defineDiagnostic } from '../spec/diagnostics.ts';

export const LOAD_CODES = {
  fileNotFound: defineDiagnostic({
    code: 'file-not-found', severity: 'error',
    message: "There is no file '{file}'.",
    description: 'The path given does not name a file. Check the spelling and the working directory.',
  }),
  fileUnreadable: defineDiagnostic({
    code: 'file-unreadable', severity: 'error',
    message: "'{file}' cannot be read: {reason}.",
    description: 'The file exists but could not be read (a directory, no permission, not UTF-8).',
  }),
  fileEmpty: defineDiagnostic({
    code: 'file-empty', severity: 'error',
    message: "'{file}' is empty. Run 'svcspec init {file}' to start a spec with all nine parts.",
    description: 'An empty file holds no specification at all, not even gaps.',
  }),
  fileType: defineDiagnostic({
    code: 'file-type-unknown', severity: 'error',
    message: "'{file}' is not a .yaml, .yml, .json or .md file.",
    description: 'svcspec reads YAML, JSON, and Markdown in the nine-part layout, told apart by the file extension.',
  }),
  syntax: defineDiagnostic({
    code: 'syntax-error', severity: 'error',
    message: '{language} syntax: {reason}.',
    description: 'The file is not well-formed YAML or JSON. The position points at where the parser gave up.',
  }),
  duplicateKey: defineDiagnostic({
    code: 'duplicate-key', severity: 'error',
    message: "The key '{key}' appears twice in the same map; only one can count.",
    description: 'YAML and JSON maps must have unique keys; a second occurrence would silently override the first.',
  }),
  notAMap: defineDiagnostic({
    code: 'document-not-a-map', severity: 'error',
    message: 'A spec is a map of the nine parts (purpose, resources, ...), not {actual}.',
    description: 'The top level of a spec must be a map whose keys are the format version and the nine parts.',
  }),
  unknownKey: defineDiagnostic({
    code: 'unknown-key', severity: 'error',
    message: "Unknown key '{key}' in {where}.{hint}",
    description: 'The key is not part of the format at this place. Usually a typo: the message suggests the closest known key.',
  }),
  missingKey: defineDiagnostic({
    code: 'missing-key', severity: 'error',
    message: "{where} needs '{key}'.",
    description: 'A key the format requires at this place is absent.',
  }),
  wrongType: defineDiagnostic({
    code: 'wrong-type', severity: 'error',
    message: '{where} must be {expected}, not {actual}.',
    description: 'The value has the wrong kind (text where a number belongs, a list where a map belongs, ...).',
  }),
  valueNotAllowed: defineDiagnostic({
    code: 'value-not-allowed', severity: 'error',
    message: "{where} must be one of {allowed}; '{value}' is not.{hint}",
    description: 'The value is not one of the words the format allows here.',
  }),
  invalidValue: defineDiagnostic({
    code: 'invalid-value', severity: 'error',
    message: '{where} {problem}.',
    description: 'The value has the right kind but breaks a rule of the format (a duration without a unit, a negative size, a badly formed name, ...).',
  }),
  noneWithContent: defineDiagnostic({
    code: 'part-none-with-content', severity: 'error',
    message: "The part '{part}' says 'none' and also has content; say one or the other.",
    description: "`none: reason` states that a part does not apply; it cannot stand beside that part's content.",
  }),
  formatVersionMissing: defineDiagnostic({
    code: 'format-version-missing', severity: 'warning',
    message: "The document does not say which format version it is written in; add 'svcspec: 1' at the top.",
    description: 'Without the version, a later svcspec cannot know how to read the document.',
  }),
  formatVersionUnsupported: defineDiagnostic({
    code: 'format-version-unsupported', severity: 'error',
    message: "Format version '{version}' is not one this svcspec reads (it reads {supported}).",
    description: 'The document is written for another version of the format.',
  }),
  partOrder: defineDiagnostic({
    code: 'part-order', severity: 'warning',
    message: "The part '{part}' stands after '{after}'; the nine parts go in this order: {order}.",
    description: 'The parts of a specification are always in the same order, so every reader finds them at once.',
  }),
  markdownDuplicateSection: defineDiagnostic({
    code: 'markdown-duplicate-section', severity: 'error',
    message: "The section '{title}' appears twice; the second one is ignored.",
    description: 'Each of the nine parts has exactly one section.',
  }),
  markdownUnknownSection: defineDiagnostic({
    code: 'markdown-unknown-section', severity: 'warning',
    message: "The section '{title}' is not one of the nine parts; it is ignored.{hint}",
    description: 'Level-2 headings name the nine parts, titled as in the founding document. Other headings are not read.',
  }),
  markdownManyBlocks: defineDiagnostic({
    code: 'markdown-many-blocks', severity: 'error',
    message: "The section '{title}' has {count} blocks and the one here is not a map; several blocks of a section are merged, which only maps can be.",
    description: "A part's content may be split over several fenced yaml (or json) blocks, each a map; they are merged key by key. A block that is a list or a single value must stand alone.",
  }),
  markdownKeyTwice: defineDiagnostic({
    code: 'markdown-key-twice', severity: 'error',
    message: "'{key}' is given in two blocks of the section '{title}' (the other block starts at line {line}); the blocks of a section are merged, so each key is given once.",
    description: "Several blocks of a section are merged into the part's content; a key that two blocks both give would make one silently win.",
  }),
} as const;

export const SUPPORTED_FORMAT_VERSIONS = ['1'] as const;
