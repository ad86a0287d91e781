/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does it,
 * so that two (or more) operator replicas can run and exactly one reconciles:
 *   - a candidate takes the Lease when it is free, released (no holder) or expired; "expired" is
 *     judged by the local clock since this candidate last saw the record change (client-go's rule:
 *     no trust in other machines' clocks), so a follower takes over `leaseDuration` after the leader
 *     stopped renewing;
 *   - the leader renews every `retryPeriod`; when no renewal has succeeded for `renewDeadline` it
 *     stops leading (its work is aborted) before the Lease can expire for the others;
 *   - every write is an optimistic-concurrency PUT/POST, so two candidates never both win;
 *   - on stop (SIGTERM) the leader aborts its work, waits for it, and releases the Lease (holder
 *     cleared, duration 1 s) so a follower need not wait out the duration.
 * Owns: the Lease record and the leading/following state. What "leading" does is the caller's.
 */
import type { Logger } from 'pino';
import { isConflict, type KubeClient, type KubeObject, type ResourceType } from './client.js';

export const LEASES: ResourceType = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
};

interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

export interface LeaseObject extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  kube: KubeClient;
  namespace: string;
  /** The Lease's name (one per operator deployment). */
  name: string;
  /** This replica's identity (the pod name), written as holderIdentity. */
  identity: string;
  /** How long a Lease stays valid without renewal. Default 15 s (client-go's default). */
  leaseDurationMs?: number;
  /** The leader gives up when it could not renew for this long; below leaseDuration. Default 10 s. */
  renewDeadlineMs?: number;
  /** Between acquisition attempts and renewals. Default 2 s. */
  retryPeriodMs?: number;
  /** Clear the Lease when stopping, so a follower takes over at once. Default true. */
  releaseOnStop?: boolean;
  /** Stops the election (and the leading work). */
  signal: AbortSignal;
  logger?: Logger;
  /** Runs while this replica leads; its signal aborts when leadership is lost or on stop. */
  onLeading(signal: AbortSignal): Promise<void>;
  /** Told of every change of leader seen (including itself); for logs and Events. */
  onNewLeader?(identity: string): void;
}

/** Lease times are MicroTime: RFC 3339 with microseconds. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One candidate's view: the record last seen and when (local clock) it last changed. */
class LeaseElector {
  private observed = '';
  private observedAt = 0;
  private lastLeader: string | undefined;
  /** When this replica last renewed successfully (local clock). */
  lastRenew = 0;

  constructor(private readonly o: LeaderElectionOptions & { leaseDurationMs: number }) {}

  private observe(spec: LeaseSpec | undefined, now: number): void {
    const key = `${spec?.holderIdentity ?? ''}|${spec?.renewTime ?? ''}|${spec?.leaseTransitions ?? 0}`;
    if (key !== this.observed) {
      this.observed = key;
      this.observedAt = now;
    }
    const holder = spec?.holderIdentity ?? '';
    if (holder && holder !== this.lastLeader) {
      this.lastLeader = holder;
      this.o.logger?.info({ lease: this.o.name, leader: holder }, 'new leader');
      this.o.onNewLeader?.(holder);
    }
  }

  private record(previous: LeaseSpec | undefined, now: number): LeaseSpec {
    const mine = previous?.holderIdentity === this.o.identity;
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.o.leaseDurationMs / 1000)),
      acquireTime: mine && previous?.acquireTime ? previous.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (mine || !previous ? 0 : 1),
    };
  }

  /** Takes or renews the Lease; true when this replica holds it now. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { kube, namespace, name, identity } = this.o;
    const now = Date.now();
    const lease = await kube.get<LeaseObject>(LEASES, namespace, name);
    try {
      if (!lease) {
        await kube.create(LEASES, namespace, { metadata: { name }, spec: this.record(undefined, now) });
      } else {
        this.observe(lease.spec, now);
        const holder = lease.spec?.holderIdentity ?? '';
        const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
        const valid = holder !== '' && this.observedAt + durationMs > now;
        if (holder !== identity && valid) return false;
        await kube.replace(LEASES, namespace, { ...lease, spec: this.record(lease.spec, now) });
      }
    } catch (error) {
      // Another candidate wrote first (AlreadyExists or a stale resourceVersion): it won this round.
      if (isConflict(error)) return false;
      throw error;
    }
    this.lastRenew = now;
    this.observe({ holderIdentity: identity }, now);
    return true;
  }

  /** Clears the holder if it is still this replica, so a follower need not wait for expiry. */
  async release(): Promise<void> {
    const { kube, namespace, name, identity } = this.o;
    const lease = await kube.get<LeaseObject>(LEASES, namespace, name);
    if (!lease || lease.spec?.holderIdentity !== identity) return;
    const now = microTime(Date.now());
    const spec: LeaseSpec = { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: now };
    await kube.replace(LEASES, namespace, { ...lease, spec });
  }
}

/** Leads while holding the Lease; holds the Lease while leading. Runs until the signal aborts. */
export async function runWithLeaderElection(options: LeaderElectionOptions): Promise<void> {
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  if (!(retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationMs)) {
    throw new Error('leader election needs retryPeriod < renewDeadline < leaseDuration');
  }
  const { signal, logger, name } = options;
  const elector = new LeaseElector({ ...options, leaseDurationMs });
  const attempt = async (): Promise<boolean> => {
    try {
      return await elector.tryAcquireOrRenew();
    } catch (error) {
      logger?.warn({ lease: name, err: (error as Error).message }, 'lease request failed');
      return false;
    }
  };
  /**
   * An attempt given at most `ms`: a request hung on a half-open connection counts as a failure,
   * so a leader that cannot renew stops leading at its deadline, as client-go's bounded renew
   * does, instead of leading on while a follower takes the expired Lease.
   */
  const attemptWithin = async (ms: number): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
    try {
      return await Promise.race([attempt(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
  while (!signal.aborted) {
    if (!(await attempt())) {
      await sleep(retryPeriodMs, signal);
      continue;
    }
    logger?.info({ lease: name, identity: options.identity }, 'became leader');
    const leading = new AbortController();
    const stop = () => leading.abort();
    signal.addEventListener('abort', stop, { once: true });
    const work = options.onLeading(leading.signal).catch((error: unknown) => {
      logger?.error({ lease: name, err: (error as Error).message }, 'leading work failed');
    });
    // Renew until the deadline passes without success, or until told to stop.
    while (!signal.aborted) {
      await sleep(retryPeriodMs, signal);
      if (signal.aborted) break;
      if (await attemptWithin(elector.lastRenew + renewDeadlineMs - Date.now())) continue;
      if (Date.now() - elector.lastRenew >= renewDeadlineMs) {
        logger?.warn({ lease: name, identity: options.identity }, 'lost leadership: could not renew in time');
        break;
      }
    }
    leading.abort();
    signal.removeEventListener('abort', stop);
    await work;
  }
  if (options.releaseOnStop ?? true) {
    try {
      await elector.release();
      logger?.info({ lease: name, identity: options.identity }, 'released the lease');
    } catch (error) {
      logger?.warn({ lease: name, err: (error as Error).message }, 'could not release the lease');
    }
  }
}
