/**
 * Turns the stream of statement outcomes into outages: an outage starts with the first
 * outage-kind failure and ends with the next success, so a restart of the database is one
 * start and one end however many requests failed in between. Counts every classified error.
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
  /** The first success after an outage; `durationMs` since its first failure. */
  onRecovered?(durationMs: number, kind: DbErrorKind): void;
}

export function createOutageTracker(events: StoreEvents = {}, now: () => number = Date.now): DatabaseHealth {
  let outage: { since: number; kind: DbErrorKind } | undefined;
  return {
    failed(kind, error) {
      events.onError?.(kind);
      if (outage || !isOutage(kind)) return;
      outage = { since: now(), kind };
      events.onOutage?.(kind, error);
    },
    succeeded() {
      if (!outage) return;
      const { since, kind } = outage;
      outage = undefined;
      events.onRecovered?.(now() - since, kind);
    },
  };
}
