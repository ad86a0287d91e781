/**
 * Turns the stream of statement outcomes into outages, so a database restart is one "unavailable"
 * log line and one "available again" line however many requests failed in between.
 *
 * An outage starts with the first outage-kind failure. It ends at a success that comes after
 * `settleMs` without any such failure: during a partial outage (a full disk or a read-only file
 * fail writes while reads succeed; terminated connections fail some requests and not others)
 * successes and failures interleave, and that is still one outage. Its duration runs from the
 * first failure to the first success after the last failure. Counts every classified error.
 *
 * It owns no I/O: what to do on each event (log, count) is the caller's (`cli/serve.ts`).
 */
import { isOutage, type DbErrorKind } from './dialect.js';
import type { DatabaseHealth } from './guarded-dialect.js';

export interface StoreEvents {
  /** Every classified database error, conflicts included (a metric counts them by kind). */
  onError?(kind: DbErrorKind): void;
  /** The database stopped answering: the first failure of an outage. */
  onOutage?(kind: DbErrorKind, error: unknown): void;
  /** The outage is over; `durationMs` from its first failure to the first success after its last. */
  onRecovered?(durationMs: number, kind: DbErrorKind): void;
}

/** Quiet time after the last failure before a success ends the outage. */
export const OUTAGE_SETTLE_MS = 1000;

export function createOutageTracker(
  events: StoreEvents = {},
  now: () => number = Date.now,
  settleMs = OUTAGE_SETTLE_MS,
): DatabaseHealth {
  let outage: { since: number; kind: DbErrorKind; lastFailure: number; firstSuccess?: number } | undefined;
  return {
    failed(kind, error) {
      events.onError?.(kind);
      if (!isOutage(kind)) return;
      const at = now();
      if (outage) {
        outage.lastFailure = at;
        outage.firstSuccess = undefined;
        return;
      }
      outage = { since: at, kind, lastFailure: at };
      events.onOutage?.(kind, error);
    },
    succeeded() {
      if (!outage) return;
      const at = now();
      outage.firstSuccess ??= at;
      if (at - outage.lastFailure < settleMs) return;
      const { since, kind, firstSuccess } = outage;
      outage = undefined;
      events.onRecovered?.(firstSuccess - since, kind);
    },
  };
}
