/** Source positions of every node, by JSON pointer, for file:line:column in every finding. */
import type { Location, SpecSource } from '../spec/model.ts';
import { parentPointer } from '../spec/pointer.ts';

export class SourceMap implements SpecSource {
  readonly file: string;
  readonly kind: SpecSource['kind'];
  readonly #values = new Map<string, Location>();
  readonly #keys = new Map<string, Location>();

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

  locate(pointer: string): Location {
    for (let p: string | undefined = pointer; p !== undefined; p = parentPointer(p)) {
      const found = this.#values.get(p);
      if (found) return found;
    }
    return { file: this.file, line: 1, column: 1 };
  }

  locateKey(pointer: string): Location {
    return this.#keys.get(pointer) ?? this.locate(pointer);
  }
}
