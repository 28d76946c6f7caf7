/**
 * A YAML spec read part by part, each top-level section's data kept across runs of one build
 * (issue #20, serve's first start after an edit). An edit usually touches one part: the
 * sections it did not touch are read back (their data, and whether they passed the format's
 * structural validation) instead of being parsed and validated again.
 *
 * Why it is sound: a top-level entry of a block mapping (`resources:` at column 0 and the
 * lines under it) reads the same alone as within the document, when nothing links it to the
 * rest — no anchor or alias (the caller takes those texts whole), no directive, no document
 * marker, no key that is not a plain name. `sectionsOf` splits only such a text and refuses
 * anything else (a tab or a quoted scalar's continuation at column 0, CRLF, a byte-order
 * mark, a key twice, `__proto__`), which is then parsed whole, as before. The root of the
 * format's schema constrains each top-level key alone (properties, additionalProperties; no
 * `required`), so a section found valid stays valid beside any others. An entry is keyed on
 * the section's text, the build (the parser's and the validator's code) and Node's version;
 * an unreadable entry is a miss. Entries are read and written only with a build identity
 * (the installed CLI's bundle) and a cache folder (src/spec/cache-folder.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { cacheFolder } from '../spec/cache-folder.ts';
import { buildId } from '../spec/package-files.ts';

export interface Section {
  /** The top-level key. */
  readonly key: string;
  /** Its lines, from the key's line to the next key's: a YAML document of one entry. */
  readonly text: string;
}

/** A plain top-level key at column 0, followed by its value (or nothing) on that line. */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: |$)/;

/** The top-level sections of a YAML text, or undefined when it is not plainly a block mapping of named entries. */
export function sectionsOf(text: string): Section[] | undefined {
  if (text.includes('\r') || text.includes('\t') || text.startsWith('\uFEFF') || text.includes('__proto__')) return undefined;
  const lines = text.split('\n');
  const starts: { line: number; key: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    // Indented, blank and comment lines belong to the section above (or to none, before the first).
    if (line === '' || line.startsWith(' ') || line.startsWith('#')) continue;
    const key = KEY_LINE.exec(line)?.[1];
    if (key === undefined) return undefined;
    starts.push({ line: i, key });
  }
  if (starts.length === 0) return undefined;
  const keys = new Set(starts.map((s) => s.key));
  if (keys.size !== starts.length) return undefined;
  // Indented lines before the first key would be read with it alone; whole texts only.
  if (lines.slice(0, starts[0]?.line).some((l) => l.startsWith(' '))) return undefined;
  return starts.map((s, j) => ({ key: s.key, text: lines.slice(s.line, starts[j + 1]?.line ?? lines.length).join('\n') }));
}

/** A kept section: whether it passed the format's structural validation, and its data (v8.serialize of `{ key: value }`). */
export interface SectionEntry {
  readonly valid: boolean;
  readonly bytes: Uint8Array;
}

export interface SectionCache {
  get(text: string): SectionEntry | undefined;
  put(text: string, entry: SectionEntry): void;
}

/** The cache of this build in the user's cache folder, or undefined where nothing is kept. */
export function sectionCache(build: string | undefined = buildId): SectionCache | undefined {
  if (build === undefined) return undefined;
  const dir = cacheFolder();
  if (!dir) return undefined;
  const path = (text: string) => join(dir, `section-${createHash('sha256').update(`${build}\0${process.version}\0yaml-section\0`).update(text).digest('hex')}.bin`);
  return {
    get(text) {
      try {
        const file = readFileSync(path(text));
        // One byte, 1 valid or 0 not, then the data.
        if (file.length < 2 || (file[0] !== 0 && file[0] !== 1)) return undefined;
        return { valid: file[0] === 1, bytes: file.subarray(1) };
      } catch {
        return undefined; // not kept yet, or unreadable: parsed
      }
    },
    put(text, entry) {
      // Written beside and renamed over: a concurrent start reads a whole entry or none. The
      // temporary name is random (pids repeat across containers sharing the folder).
      const file = path(text);
      const temp = `${file}.${randomBytes(6).toString('hex')}`;
      try {
        writeFileSync(temp, Buffer.concat([Uint8Array.of(entry.valid ? 1 : 0), entry.bytes]), { mode: 0o600, flag: 'wx' });
        renameSync(temp, file);
      } catch {
        // Not kept: the next start parses the section again, nothing more.
        try {
          rmSync(temp, { force: true });
        } catch {
          // Left for the OS's cleaning of temporary files.
        }
      }
    },
  };
}

export interface Sectioned {
  /** The document's data, as parsing it whole gives it. */
  readonly data: Record<string, unknown>;
  /** Top-level keys whose section passed the structural validation before: not validated again. */
  readonly valid: ReadonlySet<string>;
  /** Keeps what this load learnt: the sections parsed now, and whether the validation passed. */
  keep(valid: boolean): void;
}

/**
 * The document read section by section, each from the cache or by `parse` (js-yaml on the
 * section's text); undefined when the text does not split, or a section is not one entry of
 * its key (the caller then parses the whole text, and reports what is wrong with it).
 */
export function readSections(text: string, cache: SectionCache, parse: (section: string) => unknown): Sectioned | undefined {
  const sections = sectionsOf(text);
  if (!sections) return undefined;
  const data: Record<string, unknown> = {};
  const valid = new Set<string>();
  const read: { section: Section; entry: SectionEntry | undefined; bytes: Uint8Array }[] = [];
  for (const section of sections) {
    const entry = cache.get(section.text);
    let one: unknown;
    let bytes: Uint8Array;
    try {
      if (entry) {
        one = deserialize(entry.bytes);
        bytes = entry.bytes;
      } else {
        one = parse(section.text);
        // Serialized now, before the loader can touch the data it hands on.
        bytes = serialize(one);
      }
    } catch {
      return undefined;
    }
    if (typeof one !== 'object' || one === null || Array.isArray(one) || Object.keys(one).length !== 1 || !Object.hasOwn(one, section.key)) return undefined;
    data[section.key] = (one as Record<string, unknown>)[section.key];
    if (entry?.valid) valid.add(section.key);
    read.push({ section, entry, bytes });
  }
  return {
    data,
    valid,
    keep(passed) {
      for (const { section, entry, bytes } of read) {
        if (!entry || (passed && !entry.valid)) cache.put(section.text, { valid: passed, bytes });
      }
    },
  };
}
