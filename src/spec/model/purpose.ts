/** The normalized Spec, part 1. purpose (src/spec/model.ts gathers the parts). */

export interface User {
  readonly name: string;
  readonly description?: string;
  readonly tasks: readonly string[];
  readonly pointer: string;
}

export interface Purpose {
  readonly name?: string;
  readonly summary?: string;
  readonly users: readonly User[];
}
