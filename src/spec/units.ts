/** Durations (`30s`) and sizes (`64KiB`) of the format, in milliseconds and bytes. */

const DURATION_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const SIZE_BYTES = { B: 1, KB: 1000, KiB: 1024, MB: 1_000_000, MiB: 1_048_576 } as const;

export function parseDuration(text: string): number | undefined {
  const m = /^([0-9]+)(ms|s|m|h|d)$/.exec(text);
  return m ? Number(m[1]) * DURATION_MS[m[2] as keyof typeof DURATION_MS] : undefined;
}

export function parseSize(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  const m = /^([0-9]+)(B|KB|KiB|MB|MiB)$/.exec(value);
  return m ? Number(m[1]) * SIZE_BYTES[m[2] as keyof typeof SIZE_BYTES] : undefined;
}

/** The shortest exact way to write a duration back (`90000` -> `90s`). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % DURATION_MS[unit] === 0 && ms >= DURATION_MS[unit]) return `${ms / DURATION_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

export function formatSize(bytes: number): string {
  for (const unit of ['MiB', 'KiB'] as const) {
    if (bytes % SIZE_BYTES[unit] === 0) return `${bytes / SIZE_BYTES[unit]}${unit}`;
  }
  return `${bytes}B`;
}

/** A noun with its indefinite article, as read aloud: `an article`, `a book`, `a user`, `a one-off`, `a euro`, `a url`. */
export function aNoun(noun: string): string {
  // A vowel read as a consonant ('you', 'wun'): the common beginnings; else a vowel takes 'an'.
  const consonantSound = /^(?:one|once|eu|ew|uni|us|uti|uri|url|ure|uro|uku)/i.test(noun);
  return `${!consonantSound && /^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}
