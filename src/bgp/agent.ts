/**
 * `octonet bgp-agent`: one per node. Each pass reads the API (`agent-api.ts`: the speaker scheduled
 * to this agent with its peers, their MD5 secrets and its routes, in one service-only request),
 * places every route (`placement.ts`: announced here only
 * where OVN has it active now), renders FRR's configuration and applies it (`frr/apply.ts`: a few
 * lines to bgpd's vty socket when only prefixes changed, frr-reload.py otherwise).
 *
 * The agent's registration and heartbeat (`agent-sb.ts`) follow `SB_Global.nb_cfg` on their own.
 * When a pass runs: at once after a southbound change that can move or add an announcement (a port
 * binding: a gateway failover, a migration, a VIP move, and northd's `nat_addresses` update when a
 * floating IP is created or deleted), after a short API poll interval (what the southbound does not
 * show, such as a new peer), and as a full pass with frr-reload.py on a longer timer, which also
 * repairs a restarted FRR (as ovn-bgp-agent re-applies its FRR config). Passes never overlap; a
 * trigger during a pass queues one more.
 */
import { NeutronApiError, type NeutronClient } from '../mgmtnet/neutron-client.js';
import type { OvsdbClient, SbTables } from '../drivers/ovn/ovsdb/index.js';
import { hostedSpeakersPath, readApiSnapshot, readHostedSnapshot, type ApiSnapshot } from './agent-api.js';
import { agentIdFor, SouthboundView } from './agent-sb.js';
import { FrrApplier, type ApplyMode, type FrrTarget } from './frr/apply.js';
import { renderFrrConfig, type BfdTimers } from './frr/config.js';
import { placeRoutes } from './placement.js';

export interface BgpAgentLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface BgpAgentOptions {
  readonly client: NeutronClient;
  readonly sb: OvsdbClient<SbTables>;
  readonly chassis: string;
  readonly routerId: string;
  readonly frr: FrrTarget;
  /** Where the rendered file for frr-reload.py goes. */
  readonly stateDir: string;
  readonly distributedFloatingIps: boolean;
  /** MD5 secrets for peers the API gives none for (a Neutron with n-d-r: its public API hides them). */
  readonly peerPasswords: ReadonlyMap<string, string>;
  readonly bfd: BfdTimers;
  readonly pollIntervalMs: number;
  readonly fullPassIntervalMs: number;
  readonly log: BgpAgentLog;
}

export interface PassReport {
  readonly mode: ApplyMode;
  readonly announced: readonly string[];
  readonly peers: readonly string[];
}

/** FRR with no `router bgp`: what an agent without a speaker leaves behind. */
const EMPTY_CONFIG = 'frr defaults traditional\n';

export class BgpAgent {
  readonly agentId: string;
  private readonly southbound: SouthboundView;
  private readonly applier: FrrApplier;
  private running: Promise<void> | undefined;
  private again: { full: boolean } | undefined;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  private lastAnnounced = '';
  /** When the first trigger since the last pass started came. */
  private triggeredAt: number | undefined;
  /** Whether the service endpoint answered last time; a 404 is retried on full passes only. */
  private hostedEndpoint = true;
  private stopped = false;

  constructor(private readonly options: BgpAgentOptions) {
    this.agentId = agentIdFor(options.chassis);
    this.southbound = new SouthboundView(options.sb);
    this.applier = new FrrApplier(options.frr, options.stateDir);
  }

  /** One pass: read, place, render, apply. */
  async pass(full = false): Promise<PassReport> {
    const { options } = this;
    const started = performance.now();
    // How long the trigger waited for this pass (a pass running already), for the log.
    const waitMs = this.triggeredAt === undefined ? 0 : Math.round(started - this.triggeredAt);
    this.triggeredAt = undefined;
    const [, snapshot] = await Promise.all([this.southbound.register(options.chassis, this.agentId), this.read(full)]);
    const readMs = Math.round(performance.now() - started);
    const placement = placeRoutes(snapshot, this.southbound, {
      chassis: options.chassis,
      distributedFloatingIps: options.distributedFloatingIps,
      peerPasswords: options.peerPasswords,
    });
    if (placement.skippedSpeakers.length) {
      options.log.warn({ speakers: placement.skippedSpeakers }, 'speakers with another local AS are not applied');
    }
    const config =
      placement.localAs === undefined
        ? EMPTY_CONFIG
        : renderFrrConfig({
            routerId: options.routerId,
            localAs: placement.localAs,
            peers: placement.peers,
            allowed: placement.allowed,
            announced: placement.announced,
            bfd: options.bfd,
            restartTimeS: 120,
          });
    const applyStarted = performance.now();
    const mode = await this.applier.apply(config, { full });
    const applyMs = Math.round(performance.now() - applyStarted);
    const announced = placement.announced.map((a) => a.prefix).sort();
    if (announced.join(',') !== this.lastAnnounced) {
      this.lastAnnounced = announced.join(',');
      const passMs = Math.round(performance.now() - started);
      options.log.info(
        { mode, waitMs, readMs, applyMs, passMs, announced: announced.slice(0, 20), count: announced.length },
        'announcing',
      );
    }
    return { mode, announced, peers: placement.peers.map((p) => p.address) };
  }

  /**
   * The API snapshot: the service endpoint, or n-d-r's public API when it answers 404 (then the
   * secrets come from `peerPasswords` only, which is said once).
   */
  private async read(full: boolean): Promise<ApiSnapshot> {
    const { client, log } = this.options;
    if (this.hostedEndpoint || full) {
      const hosted = await readHostedSnapshot(client, this.agentId);
      if (hosted) {
        this.hostedEndpoint = true;
        return hosted;
      }
      if (this.hostedEndpoint) {
        log.warn(
          { path: `/v2.0${hostedSpeakersPath(this.agentId)}` },
          'no service endpoint (not octonet, or no service role): reading the public API, MD5 secrets from --peer-passwords',
        );
      }
      this.hostedEndpoint = false;
    }
    return readApiSnapshot(client, this.agentId);
  }

  /** Asks for a pass; coalesces with the one running. */
  trigger(full = false): void {
    if (this.stopped) return;
    this.triggeredAt ??= performance.now();
    if (this.running) {
      this.again = { full: full || (this.again?.full ?? false) };
      return;
    }
    this.running = this.pass(full)
      .then(
        () => undefined,
        (error: Error) =>
          this.options.log.warn(
            { error: error instanceof NeutronApiError ? error.describe() : error.message },
            'pass failed; retrying on the next trigger',
          ),
      )
      .finally(() => {
        this.running = undefined;
        const next = this.again;
        this.again = undefined;
        if (next) this.trigger(next.full);
      });
  }

  start(): void {
    const { sb } = this.options;
    this.unsubscribe = sb.onChange((changes) => {
      if (changes.some((c) => c.table === 'Port_Binding')) this.trigger();
      // The API's ping before an agent list bumps nb_cfg: answer it with the heartbeat alone.
      if (changes.some((c) => c.table === 'SB_Global')) {
        this.southbound
          .register(this.options.chassis, this.agentId)
          .catch((error: Error) => this.options.log.warn({ error: error.message }, 'heartbeat failed'));
      }
    });
    sb.on('synced', () => this.trigger(true));
    this.timers.push(setInterval(() => this.trigger(), this.options.pollIntervalMs));
    this.timers.push(setInterval(() => this.trigger(true), this.options.fullPassIntervalMs));
    this.trigger(true);
  }

  /** Stops triggering and waits for a running pass; FRR keeps its configuration. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.unsubscribe?.();
    await this.running;
  }
}
