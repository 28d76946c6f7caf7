/** The normalized Spec, part 5. authentication (src/spec/model.ts gathers the parts). */

interface SchemeBase {
  readonly name: string;
  readonly description?: string;
  readonly pointer: string;
}

export type AuthScheme =
  | (SchemeBase & { readonly type: 'apiKey'; readonly in: 'header' | 'query'; readonly param: string })
  | (SchemeBase & {
      readonly type: 'bearer';
      readonly tokens: 'opaque' | 'jwt';
      /**
       * The auth-scheme name before the token in Authorization (RFC 9110 §11.4): `Token`
       * (Django REST framework, RealWorld); absent: `Bearer` (RFC 6750). src/spec/conventions/challenges.ts.
       */
      readonly prefix?: string;
      readonly jwt?: {
        readonly issuer?: string;
        readonly audience?: string;
        readonly algorithms: readonly string[];
        readonly jwksUrl?: string;
        readonly jwksFile?: string;
        readonly scopesClaim?: string;
      };
    })
  | (SchemeBase & { readonly type: 'basic' })
  | (SchemeBase & { readonly type: 'oauth2'; readonly flow: 'clientCredentials'; readonly tokenPath: string; readonly tokenTtlMs?: number });

export interface Scope {
  readonly name: string;
  readonly description?: string;
  readonly pointer: string;
}

export interface AuthRule {
  /** An endpoint id or a pattern `resource.*`. */
  readonly match: string;
  readonly public: boolean;
  readonly scopes: readonly string[];
  readonly pointer: string;
}

export interface Authentication {
  readonly schemes: readonly AuthScheme[];
  /** How a client obtains credentials. */
  readonly obtain?: string;
  readonly scopes: readonly Scope[];
  /** Scopes every non-public endpoint needs unless a rule says otherwise. */
  readonly defaultScopes: readonly string[];
  readonly rules: readonly AuthRule[];
}
