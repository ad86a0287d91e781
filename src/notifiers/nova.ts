/**
 * Nova's port events, as Neutron's `neutron/notifiers/nova.py` sends them, fed by the writes core
 * commits (registered as a driver: it only listens, in `postcommit`, and never refuses a write):
 *
 *   a compute port's status  DOWN/BUILD → ACTIVE  network-vif-plugged   completed
 *                            DOWN/BUILD → ERROR   network-vif-plugged   failed
 *                            ACTIVE → DOWN        network-vif-unplugged completed
 *   an API update of a compute port               network-changed
 *   an API delete of a compute port               network-vif-deleted
 *   a floating IP created, updated or deleted     network-changed for its port (and for the
 *     with a port (moved: for the old port too)   old port when it moved without a disassociate)
 *
 * A compute port has a UUID-like `device_id` (the server) and a `compute:*` owner; `tag` is the
 * port id. Data events go out through `EventBatcher` (the first at once, then every
 * `send_events_interval`), as in Neutron. Status events (plugged, unplugged) differ on purpose:
 * Nova holds a boot or a migration until it hears them, and in Neutron's one queue a boot's own
 * port update (a `network-changed`) opens the 2 s window that the plug then waits out. They have a
 * queue of their own that sends as soon as the previous send has returned, so a burst still goes
 * out in a few requests. Nothing here waits for Nova or throws into the request that queued
 * them. Nova's answers are handled as Neutron does: per-event codes of a 200/207 logged (INFO for
 * 200, WARNING otherwise, never retried), a 404 is normal (an instance Nova does not know) and
 * dropped; unlike Neutron, a 5xx is retried like a connection failure (`http_retries`, backoff).
 */
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import { KeystoneRefusedCredentials } from '../auth/keystone-client.js';
import type { NovaConfig } from '../config/config.js';
import type { MechanismDriver, ResourceContext } from '../drivers/contract.js';
import type { DriverHost, FloatingIpState, PortState } from '../drivers/host.js';
import { EventBatcher } from './batcher.js';
import { NovaUnreachable, type NovaEvent } from './nova-client.js';

/** What the notifier needs of Nova (`NovaClient`; tests may pass their own). */
export interface NovaEventSink {
  postEvents(events: readonly NovaEvent[]): Promise<{ status: number; body: unknown }>;
  forgetToken(): void;
}

const UUID_LIKE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Neutron's `_is_compute_port`: Nova's ports only. */
export function isComputePort(port: Pick<PortState, 'device_id' | 'device_owner'>): boolean {
  return UUID_LIKE.test(port.device_id) && port.device_owner.startsWith('compute:');
}

/** `record_port_status_changed`: the event a status transition gives, if any. */
export function statusEvent(port: PortState, previous: string | undefined): NovaEvent | undefined {
  if (!isComputePort(port) || previous === port.status) return undefined;
  const base = { server_uuid: port.device_id, tag: port.id };
  if (previous === 'ACTIVE' && port.status === 'DOWN') {
    return { ...base, name: 'network-vif-unplugged', status: 'completed' };
  }
  if ([undefined, 'DOWN', 'BUILD'].includes(previous) && ['ACTIVE', 'ERROR'].includes(port.status)) {
    return { ...base, name: 'network-vif-plugged', status: port.status === 'ACTIVE' ? 'completed' : 'failed' };
  }
  return undefined;
}

/** Writes that came through the API (Neutron's `BEFORE_RESPONSE`), not octonet's own reports. */
const fromApi = (context: ResourceContext) => context.request.requestId.startsWith('req-');

interface NotifierMetrics {
  readonly events: Counter<'name' | 'code'>;
  readonly failed: Counter<'name'>;
  readonly retries: Counter;
  readonly batchSize: Histogram;
}

function createMetrics(registry: Registry): NotifierMetrics {
  const registers = [registry];
  return {
    events: new Counter({
      name: 'octonet_nova_events_sent_total',
      help: "Events Nova answered, by name and Nova's per-event code (200 accepted, 404 unknown server, 422 no host yet)",
      labelNames: ['name', 'code'],
      registers,
    }),
    failed: new Counter({
      name: 'octonet_nova_events_failed_total',
      help: 'Events given up on (Nova unreachable after the retries, or refused the whole batch)',
      labelNames: ['name'],
      registers,
    }),
    retries: new Counter({
      name: 'octonet_nova_event_retries_total',
      help: 'Batches sent again after a connection failure, a timeout or a 5xx',
      registers,
    }),
    batchSize: new Histogram({
      name: 'octonet_nova_event_batch_size',
      help: 'Events per request to os-server-external-events',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
      registers,
    }),
  };
}

export interface NovaNotifierOptions {
  readonly config: NovaConfig;
  readonly sink: NovaEventSink;
  readonly logger: Logger;
  readonly registry: Registry;
  /** Waits between retries (tests pass a quicker one). */
  readonly backoffMs?: (attempt: number) => number;
}

export class NovaNotifier implements MechanismDriver {
  readonly name = 'nova-notifier';
  private host?: DriverHost;
  /** `network-changed` and `network-vif-deleted`, every `send_events_interval`. */
  private readonly batcher: EventBatcher<NovaEvent>;
  /** `network-vif-plugged` and `-unplugged`, at once (what arrives during a send goes in the next). */
  private readonly statusBatcher: EventBatcher<NovaEvent>;
  private readonly metrics: NotifierMetrics;
  private readonly backoffMs: (attempt: number) => number;
  private stopping = false;

  constructor(private readonly options: NovaNotifierOptions) {
    this.metrics = createMetrics(options.registry);
    this.batcher = new EventBatcher(options.config.send_events_interval * 1000, (batch) => this.send(batch));
    this.statusBatcher = new EventBatcher(0, (batch) => this.send(batch));
    // tenacity's wait_exponential(multiplier=0.01, max=1) in Neutron, a little slower to start.
    this.backoffMs = options.backoffMs ?? ((attempt) => Math.min(1000, 100 * 2 ** attempt));
  }

  async start(host: DriverHost): Promise<void> {
    this.host = host;
  }

  /** Sends what is queued once more, without retries, so a Nova that is down cannot hold up a shutdown. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([this.batcher.stop(), this.statusBatcher.stop()]);
  }

  /** Queues the events of a committed write; waits for nothing but the queueing. */
  async postcommit(context: ResourceContext): Promise<void> {
    const { config } = this.options;
    if (context.resource === 'port') {
      const port = context.current;
      if (context.operation === 'delete') {
        if (config.notify_on_port_data_changes && isComputePort(port)) {
          this.queue({ name: 'network-vif-deleted', server_uuid: port.device_id, tag: port.id });
        }
        return;
      }
      const previous = context.operation === 'create' ? undefined : context.original?.status;
      const status = config.notify_on_port_status_changes ? statusEvent(port, previous) : undefined;
      if (status) this.statusBatcher.queue(status);
      if (context.operation === 'update' && config.notify_on_port_data_changes && fromApi(context)) {
        if (isComputePort(port)) this.queue({ name: 'network-changed', server_uuid: port.device_id, tag: port.id });
      }
    } else if (context.resource === 'floatingip' && config.notify_on_port_data_changes && fromApi(context)) {
      // The port is read in the background: the request that moved the address is not held up.
      this.floatingIpEvents(context.current, context.original, context.operation).catch((error: unknown) =>
        this.options.logger.warn(
          { err: error, floatingip: context.current.id },
          'nova: cannot read a floating IP port',
        ),
      );
    }
  }

  /** `send_network_change` for a floating IP: its port now (or before a disassociate), and the old one on a move. */
  private async floatingIpEvents(
    current: FloatingIpState,
    original: FloatingIpState | undefined,
    operation: ResourceContext['operation'],
  ): Promise<void> {
    const ports: string[] = [];
    if (operation === 'update' && current.port_id && original?.port_id) ports.push(original.port_id);
    const portId = operation === 'delete' ? current.port_id : (current.port_id ?? original?.port_id);
    if (portId) ports.push(portId);
    for (const id of ports) {
      const port = await this.host?.reader.port(id);
      if (port && isComputePort(port)) this.queue({ name: 'network-changed', server_uuid: port.device_id, tag: id });
    }
  }

  private queue(event: NovaEvent): void {
    this.batcher.queue(event);
  }

  /** One batch to Nova, retried on what another try may fix; counts and logs every event's fate. */
  private async send(batch: NovaEvent[]): Promise<void> {
    const { logger, sink, config } = this.options;
    this.metrics.batchSize.observe(batch.length);
    let lastProblem = '';
    for (let attempt = 0; attempt <= config.http_retries; attempt++) {
      if (attempt > 0 && this.stopping) break;
      if (attempt > 0) {
        this.metrics.retries.inc();
        await new Promise((resolve) => setTimeout(resolve, this.backoffMs(attempt - 1)));
      }
      let answer: { status: number; body: unknown };
      try {
        answer = await sink.postEvents(batch);
      } catch (error) {
        if (error instanceof KeystoneRefusedCredentials) {
          this.giveUp(batch, error.message);
          return;
        }
        lastProblem = error instanceof NovaUnreachable ? error.message : String((error as Error).message ?? error);
        continue;
      }
      if (answer.status === 401) {
        sink.forgetToken();
        lastProblem = 'Nova refused the token (401)';
        continue;
      }
      if (answer.status >= 500) {
        lastProblem = `Nova answered ${answer.status}`;
        continue;
      }
      this.handleAnswer(batch, answer);
      return;
    }
    this.giveUp(batch, lastProblem);
    logger.debug({ retries: config.http_retries, stopping: this.stopping }, 'nova: batch given up');
  }

  private handleAnswer(batch: NovaEvent[], answer: { status: number; body: unknown }): void {
    const { logger } = this.options;
    if (answer.status === 404) {
      // Neutron's novaclient NotFound: the instance is gone or never was; nothing to do.
      for (const event of batch) {
        this.metrics.events.inc({ name: event.name, code: '404' });
        logger.debug({ ...describe(event), code: 404 }, 'nova: event for a server Nova does not know');
      }
      return;
    }
    const results = (answer.body as { events?: unknown } | null)?.events;
    if ((answer.status !== 200 && answer.status !== 207) || !Array.isArray(results)) {
      this.giveUp(batch, `Nova answered ${answer.status} without per-event results`);
      return;
    }
    for (const [i, event] of batch.entries()) {
      const result = results[i] as { code?: unknown } | undefined;
      const code = typeof result?.code === 'number' ? result.code : undefined;
      if (code === undefined) {
        this.metrics.failed.inc({ name: event.name });
        logger.error({ ...describe(event), result }, 'nova: event answered without a code');
        continue;
      }
      this.metrics.events.inc({ name: event.name, code: String(code) });
      if (code === 200) logger.info({ ...describe(event), code }, 'nova: event delivered');
      else logger.warn({ ...describe(event), code }, 'nova: event returned with failed status');
    }
  }

  private giveUp(batch: NovaEvent[], problem: string): void {
    for (const event of batch) {
      this.metrics.failed.inc({ name: event.name });
      this.options.logger.error({ ...describe(event), problem }, 'nova: event not delivered');
    }
  }
}

/** The log fields of an event: which port of which server, and what. */
function describe(event: NovaEvent): Record<string, string | undefined> {
  return { event: event.name, port: event.tag, server: event.server_uuid, status: event.status };
}

/** The notifier `nova:` asks for; undefined when `nova.auth_url` is unset (Nova hears nothing). */
export async function createNovaNotifier(
  config: NovaConfig,
  logger: Logger,
  registry: Registry,
): Promise<NovaNotifier | undefined> {
  const { auth_url: authUrl, password_file: passwordFile, password } = config;
  if (authUrl === undefined || (passwordFile === undefined && !password)) return undefined;
  const { NovaClient, readPasswordFile } = await import('./nova-client.js');
  const sink = new NovaClient({ ...config, auth_url: authUrl }, password ?? readPasswordFile(passwordFile!));
  return new NovaNotifier({ config, sink, logger: logger.child({ component: 'nova-notifier' }), registry });
}
