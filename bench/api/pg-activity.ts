/**
 * What PostgreSQL's backends spend a benchmark phase doing, from its own statistics views: how
 * long transactions waited for a lock (sampled from `pg_stat_activity`, by wait event, with the
 * statements that waited most), how long they sat `idle in transaction` (holding their locks while
 * the API server computed or the round trip travelled), and the commits, rollbacks (a rollback is
 * usually a conflict the store retried) and deadlocks of the database (`pg_stat_database`).
 *
 * Sampling is statistical: a wait shorter than the interval is seen in proportion to its length,
 * so the totals are estimates of time, good to a few sample intervals per phase. The sampler's own
 * backend is named (`backendPid`) so its CPU can be left out of PostgreSQL's. Reads only.
 */
import pg from 'pg';

export interface PgActivity {
  /** Seconds of backend time spent waiting for a heavyweight lock, by wait event (advisory, transactionid, tuple, ...). */
  lockWaitS: Record<string, number>;
  /** Seconds of backend time `idle in transaction`: a transaction open while its client works. */
  idleInTransactionS: number;
  /**
   * Seconds advisory locks were held (summed over holders): the time writes spend in the
   * sections one such lock serialises (octonet's quota counts), whoever waits for them.
   */
  advisoryHeldS: number;
  /** Seconds of backend time running a statement (waiting or not). */
  activeS: number;
  /** The statements that waited for locks longest, with their seconds. */
  topWaiters: Array<{ query: string; seconds: number }>;
  commits: number;
  rollbacks: number;
  deadlocks: number;
  samples: number;
}

interface ActivityRow {
  /** Granted advisory locks of the database at the sample (the same on every row). */
  advisory_held: number;
  state: string | null;
  wait_event_type: string | null;
  wait_event: string | null;
  query: string;
}

interface DatabaseCounters {
  xact_commit: number;
  xact_rollback: number;
  deadlocks: number;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Statement text without literals and whitespace runs, short enough for a table cell. */
function statementShape(query: string): string {
  return query
    .replace(/\s+/g, ' ')
    .replace(/'[^']*'/g, '?')
    .replace(/\$\d+/g, '?')
    .slice(0, 100);
}

export class PgActivitySampler {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private start0: DatabaseCounters | undefined;
  private lastSample = 0;
  private lockWait = new Map<string, number>();
  private waiters = new Map<string, number>();
  private idleInTx = 0;
  private advisoryHeld = 0;
  private active = 0;
  private samples = 0;
  backendPid = 0;

  constructor(
    private readonly url: string,
    private readonly intervalMs = 25,
  ) {}

  /** Connects once; `begin` and `end` may then bracket several phases. */
  async connect(): Promise<void> {
    this.client = new pg.Client({ connectionString: this.url });
    await this.client.connect();
    const { rows } = await this.client.query<{ pid: number }>('select pg_backend_pid() as pid');
    this.backendPid = rows[0]!.pid;
  }

  async close(): Promise<void> {
    await this.client?.end();
  }

  async begin(): Promise<void> {
    this.lockWait.clear();
    this.waiters.clear();
    this.idleInTx = this.active = this.samples = this.advisoryHeld = 0;
    this.start0 = await this.counters();
    this.lastSample = performance.now();
    this.timer = setInterval(() => {
      // One sample at a time: on a loaded machine a sample may take longer than the interval.
      this.inFlight ??= this.sample().finally(() => (this.inFlight = undefined));
    }, this.intervalMs);
  }

  async end(): Promise<PgActivity> {
    clearInterval(this.timer);
    await this.inFlight;
    const end = await this.counters();
    const start = this.start0!;
    return {
      lockWaitS: Object.fromEntries([...this.lockWait].map(([k, v]) => [k, round(v)])),
      idleInTransactionS: round(this.idleInTx),
      advisoryHeldS: round(this.advisoryHeld),
      activeS: round(this.active),
      topWaiters: [...this.waiters]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([query, seconds]) => ({ query, seconds: round(seconds) })),
      commits: end.xact_commit - start.xact_commit,
      rollbacks: end.xact_rollback - start.xact_rollback,
      deadlocks: end.deadlocks - start.deadlocks,
      samples: this.samples,
    };
  }

  private async counters(): Promise<DatabaseCounters> {
    // The statistics snapshot of a transaction is cached: clear it so the counters are current.
    await this.client!.query('select pg_stat_clear_snapshot()');
    const { rows } = await this.client!.query<DatabaseCounters>(
      'select xact_commit::float8 as xact_commit, xact_rollback::float8 as xact_rollback, deadlocks::float8 as deadlocks ' +
        'from pg_stat_database where datname = current_database()',
    );
    return rows[0]!;
  }

  private async sample(): Promise<void> {
    const { rows } = await this.client!.query<ActivityRow>(
      'select state, wait_event_type, wait_event, query, ' +
        "(select count(*) from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' " +
        'and l.granted and d.datname = current_database()) as advisory_held from pg_stat_activity ' +
        "where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'",
    );
    // Each sample stands for the time since the previous one (the timer slips under load).
    const now = performance.now();
    const span = (now - this.lastSample) / 1000;
    this.lastSample = now;
    this.samples++;
    this.advisoryHeld += (rows[0]?.advisory_held ?? 0) * span;
    for (const row of rows) {
      if (row.state === 'idle in transaction') this.idleInTx += span;
      if (row.state !== 'active') continue;
      this.active += span;
      if (row.wait_event_type !== 'Lock') continue;
      const event = row.wait_event ?? 'unknown';
      this.lockWait.set(event, (this.lockWait.get(event) ?? 0) + span);
      const shape = `${event}: ${statementShape(row.query)}`;
      this.waiters.set(shape, (this.waiters.get(shape) ?? 0) + span);
    }
  }
}

export const totalLockWaitS = (a: PgActivity) => Object.values(a.lockWaitS).reduce((s, v) => s + v, 0);
