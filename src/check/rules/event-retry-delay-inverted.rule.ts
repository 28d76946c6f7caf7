import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { formatDuration } from '../../spec/units.ts';
import { defineRule } from '../rule.ts';

const inverted = defineDiagnostic({
  code: 'event-retry-delay-inverted',
  severity: 'error',
  part: 'events',
  message: 'The first retry waits {initial}, longer than the longest delay between attempts ({max}).',
  description: '`maxDelay` caps the delay between webhook delivery attempts; an `initialDelay` above it contradicts it. Lower `initialDelay` or raise `maxDelay`.',
});

export default defineRule({
  name: 'event-retry-delay-inverted',
  diagnostics: [inverted],
  spec(ctx) {
    const retry = ctx.spec.events.retry;
    if (retry?.maxDelayMs === undefined || retry.initialDelayMs <= retry.maxDelayMs) return;
    ctx.report(inverted, { initial: formatDuration(retry.initialDelayMs), max: formatDuration(retry.maxDelayMs) }, child(retry.pointer, 'initialDelay'));
  },
});
