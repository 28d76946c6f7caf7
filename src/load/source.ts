/** Source positions of every node, by JSON pointer, for file:line:column in every finding. */
import type { Location, SpecSource } from '../spec/model.ts';
import { parentPointer, parsePointer } from '../spec/pointer.ts';
import { sourceOffset, type TextScalar } from './text-offsets.ts';

export class SourceMap implements SpecSource {
  readonly file: string;
  readonly kind: SpecSource['kind'];
  readonly #values = new Map<string, Location>();
  readonly #keys = new Map<string, Location>();
  /** Position indexing deferred until a finding needs a place (most clean specs never do). */
  #pending: (() => void)[] = [];

  constructor(file: string, kind: SpecSource['kind']) {
    this.file = file;
    this.kind = kind;
  }

  setValue(pointer: string, location: Location): void {
    this.#values.set(pointer, location);
  }

  setKey(pointer: string, location: Location): void {
    this.#keys.set(pointer, location);
  }

  readonly #texts = new Map<string, TextScalar>();

  /** A text value as it is written (quoted, plain, a block), for places inside it. */
  setText(pointer: string, scalar: TextScalar): void {
    this.#texts.set(pointer, scalar);
  }

  locateWithin(pointer: string, offset: number): Location {
    this.#settle();
    const scalar = this.#texts.get(pointer);
    const at = scalar ? sourceOffset(scalar, offset) : undefined;
    return at === undefined || !scalar ? this.locate(pointer) : scalar.at(at);
  }

  /** The parsed data under a pointer prefix, so `has` answers without positions. */
  readonly #roots: { prefix: string; data: unknown }[] = [];

  setData(prefix: string, data: unknown): void {
    this.#roots.push({ prefix, data });
  }

  has(pointer: string): boolean {
    for (const { prefix, data } of this.#roots) {
      if (pointer !== prefix && !pointer.startsWith(`${prefix}/`)) continue;
      let node: unknown = data;
      for (const token of parsePointer(pointer.slice(prefix.length))) {
        if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return false;
        node = (node as Record<string, unknown>)[token];
      }
      return true;
    }
    return false;
  }

  /** Registers work that fills positions; it runs once, on the first look-up. */
  defer(fill: () => void): void {
    this.#pending.push(fill);
  }

  #settle(): void {
    if (this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    for (const fill of pending) fill();
  }

  locate(pointer: string): Location {
    this.#settle();
    for (let p: string | undefined = pointer; p !== undefined; p = parentPointer(p)) {
      const found = this.#values.get(p);
      if (found) return found;
    }
    return { file: this.file, line: 1, column: 1 };
  }

  locateKey(pointer: string): Location {
    this.#settle();
    return this.#keys.get(pointer) ?? this.locate(pointer);
  }
}
