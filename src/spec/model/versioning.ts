/** The normalized Spec, part 9. versioning (src/spec/model.ts gathers the parts). */

export interface Version {
  readonly name: string;
  readonly status: 'current' | 'deprecated' | 'retired';
  readonly released?: string;
  readonly deprecated?: string;
  readonly sunset?: string;
  /** Documentation of the version, linked from a deprecated version's responses. */
  readonly docs?: string;
  readonly pointer: string;
}

export interface Versioning {
  /** How a client selects a version. Undefined while the part is a gap. */
  readonly select?:
    | { readonly by: 'header'; readonly name: string }
    | { readonly by: 'query'; readonly name: string }
    | { readonly by: 'path'; readonly prefix: string };
  readonly default?: string;
  readonly versions: readonly Version[];
  readonly pointer: string;
}
