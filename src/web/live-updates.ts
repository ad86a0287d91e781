/**
 * The topology page's live updates: server-sent events (`GET /ui/events`), each a full snapshot of
 * the topology feed as the viewer may see it. A change signal (a committed write, a status report
 * from the OVN watcher, an SB change such as a gateway moving; see `DriverManager.onChange`) starts
 * a short debounce, then the feed is built once per distinct viewer (admin, or per project and
 * roles) and sent to every stream whose snapshot differs from what it last received. A slow
 * periodic pass catches what changes with time alone (a chassis missing its heartbeats).
 *
 * Snapshots rather than diffs: the page redraws from one object and a reconnecting stream needs
 * no replay. A snapshot is kept per viewer kind until the next change, so a page opened (or
 * reloaded) while nothing changed costs no rebuild. At 10,000 ports a rebuild takes about a second
 * (core's port list, bench/web): passes are throttled so they use at most half the time, however
 * fast the changes come.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { RequestContext } from '../core/context.js';
import type { TopologyFeed } from './topology-feed.js';

interface Viewer {
  readonly ctx: RequestContext;
  readonly response: ServerResponse;
  /** The session it belongs to (keystone mode), so signing out ends it. */
  readonly session: string | undefined;
  /** The last snapshot sent, without its timestamp. */
  last: string;
}

/** A feed as streams send it: its content as JSON (what is compared), and when it was built. */
interface Snapshot {
  readonly content: string;
  readonly generatedAt: string;
}

export interface LiveUpdateOptions {
  readonly build: (ctx: RequestContext) => Promise<TopologyFeed>;
  readonly logger: Logger;
  /** Changes closer together than this make one snapshot (ms). */
  readonly debounceMs?: number;
  /** A pass without any change signal, for what time alone changes (ms). */
  readonly refreshMs?: number;
  /** A comment line keeps idle connections (and proxies) open (ms). */
  readonly heartbeatMs?: number;
}

/** Who sees the same feed: admins all alike; everyone else per project and roles. */
const viewKey = (ctx: RequestContext) => (ctx.isAdmin ? 'admin' : `${ctx.projectId ?? ''} ${ctx.roles.join(',')}`);

export class LiveUpdates {
  private readonly viewers = new Set<Viewer>();
  private debounce: NodeJS.Timeout | undefined;
  private refresh: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private passAgain = false;
  /** How long the last pass took, and when it ended: the next one starts no sooner than that long after. */
  private lastPassMs = 0;
  private lastPassEnd = 0;
  /** Snapshots by viewer kind, valid until the next change. */
  private readonly snapshots = new Map<string, Promise<Snapshot>>();

  constructor(private readonly options: LiveUpdateOptions) {}

  /** Something may have changed: kept snapshots are dropped, and streams get a new one after the debounce. */
  changed = (): void => {
    this.snapshots.clear();
    if (this.viewers.size === 0 || this.debounce) return;
    this.debounce = setTimeout(
      () => {
        this.debounce = undefined;
        this.runPass();
      },
      Math.max(this.options.debounceMs ?? 50, this.lastPassMs - (performance.now() - this.lastPassEnd)),
    );
  };

  /** The feed as `ctx` sees it: the kept snapshot, or a new one. */
  async feed(ctx: RequestContext): Promise<string> {
    const snapshot = await this.snapshot(ctx);
    return `{"generated_at":${JSON.stringify(snapshot.generatedAt)},${snapshot.content.slice(1)}`;
  }

  private snapshot(ctx: RequestContext): Promise<Snapshot> {
    const key = viewKey(ctx);
    let snapshot = this.snapshots.get(key);
    if (!snapshot) {
      snapshot = this.options.build(ctx).then(({ generated_at, ...content }) => ({
        content: JSON.stringify(content),
        generatedAt: generated_at,
      }));
      this.snapshots.set(key, snapshot);
      // A failed build is not kept.
      snapshot.catch(() => this.snapshots.get(key) === snapshot && this.snapshots.delete(key));
    }
    return snapshot;
  }

  /** Opens a stream on `response` and sends the first snapshot at once. */
  async open(ctx: RequestContext, response: ServerResponse, session: string | undefined, headers: object) {
    response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const viewer: Viewer = { ctx, response, session, last: '' };
    this.viewers.add(viewer);
    response.on('close', () => this.remove(viewer));
    this.startTimers();
    try {
      this.send(viewer, await this.snapshot(ctx));
    } catch (error) {
      // The headers are out: the stream ends, and the page's EventSource tries again.
      this.options.logger.error({ err: error }, 'topology page: first snapshot failed');
      response.end();
    }
  }

  /** Ends every stream of a session (signed out). */
  endSession(session: string): void {
    for (const viewer of this.viewers) if (viewer.session === session) viewer.response.end();
  }

  /** Ends every stream and timer (server shutdown). */
  close(): void {
    for (const viewer of this.viewers) viewer.response.end();
    this.viewers.clear();
    this.stopTimers();
  }

  private remove(viewer: Viewer): void {
    this.viewers.delete(viewer);
    if (this.viewers.size === 0) this.stopTimers();
  }

  private startTimers(): void {
    this.refresh ??= setInterval(this.changed, this.options.refreshMs ?? 10_000).unref();
    this.heartbeat ??= setInterval(() => {
      for (const viewer of this.viewers) viewer.response.write(': keep-alive\n\n');
    }, this.options.heartbeatMs ?? 15_000).unref();
  }

  private stopTimers(): void {
    for (const timer of [this.debounce, this.refresh, this.heartbeat]) clearTimeout(timer);
    this.debounce = this.refresh = this.heartbeat = undefined;
  }

  /** One pass at a time; a change during a pass runs one more after it, no sooner than the pass took. */
  private runPass(): void {
    if (this.pass) {
      this.passAgain = true;
      return;
    }
    const started = performance.now();
    this.pass = this.sendAll()
      .catch((error: unknown) => this.options.logger.error({ err: error }, 'topology page: snapshot failed'))
      .finally(() => {
        this.pass = undefined;
        this.lastPassEnd = performance.now();
        this.lastPassMs = this.lastPassEnd - started;
        if (this.passAgain) {
          this.passAgain = false;
          this.changed();
        }
      });
  }

  private async sendAll(): Promise<void> {
    await Promise.all([...this.viewers].map(async (viewer) => this.send(viewer, await this.snapshot(viewer.ctx))));
  }

  private send(viewer: Viewer, snapshot: Snapshot): void {
    if (snapshot.content === viewer.last || viewer.response.writableEnded) return;
    viewer.last = snapshot.content;
    // JSON has no raw newline, so the snapshot is one `data:` line.
    const data = `{"generated_at":${JSON.stringify(snapshot.generatedAt)},${snapshot.content.slice(1)}`;
    viewer.response.write(`event: snapshot\ndata: ${data}\n\n`);
  }
}
