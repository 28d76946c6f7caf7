/** The normalized Spec, part 6. events (src/spec/model.ts gathers the parts). */

export type TriggerAction = 'created' | 'updated' | 'deleted' | 'transition';

export interface EventDef {
  readonly name: string;
  readonly description?: string;
  /** `on: loan.approve` read as resource `loan`, action `transition`, transition `approve`. */
  readonly trigger: { readonly on: string; readonly resource: string; readonly action: TriggerAction; readonly transition?: string; readonly pointer: string };
  /** The whole resource, or only the named fields of it. */
  readonly payload: { readonly kind: 'resource' } | { readonly kind: 'fields'; readonly fields: readonly string[] };
  readonly since?: string;
  readonly until?: string;
  readonly pointer: string;
}

export interface RetryPolicy {
  readonly attempts: number;
  readonly backoff: 'exponential' | 'fixed';
  readonly initialDelayMs: number;
  readonly maxDelayMs?: number;
  readonly pointer: string;
}

export interface Events {
  readonly webhooks?: {
    /** Subscriptions managed through the API, or configured out of band by the operator. */
    readonly subscriptions: 'api' | 'config';
    readonly path?: string;
    readonly signing: 'standard-webhooks' | 'none';
    readonly cloudEvents: boolean;
    readonly timeoutMs?: number;
    readonly pointer: string;
  };
  readonly stream?: { readonly path: string; readonly heartbeatMs?: number; readonly pointer: string };
  readonly retry?: RetryPolicy;
  readonly catalog: readonly EventDef[];
}
