/**
 * The clients of the fault suite: N concurrent loops of mixed reads and writes over HTTP against
 * one `octonet serve` or several replicas (network, port, and optionally router and floating IP
 * creates, network lists, shows of what was created), each answer recorded with its start and end
 * time, every acknowledged create remembered so the test can check it survived the fault.
 *
 * With several replicas a client behaves as keystoneauth's `connect_retries` does: a request whose
 * connection was refused never reached a server, so it is sent again to the next replica; a
 * connection that broke after the request went out is not retried (the write may have happened)
 * and is recorded as `no-answer`, and the client moves on to the next replica.
 */

/** One request as a client saw it. */
export interface Outcome {
  readonly op: 'create-network' | 'create-port' | 'create-router' | 'create-floatingip' | 'list-networks' | 'show';
  readonly write: boolean;
  readonly started: number;
  readonly ended: number;
  /** The HTTP status, or `no-answer` when the connection failed or the hang guard fired. */
  readonly status: number | 'no-answer';
  /** The replica that answered (or failed to). */
  readonly url: string;
  /** What is wrong with a 503: it must be Neutron's ServiceUnavailable with Retry-After. */
  readonly problem?: string;
  /** The NeutronError detail of a failed request (names the kind of database failure). */
  readonly detail?: string;
}

/** A request never waits longer than this: far past every database timeout the suite configures. */
const HANG_GUARD_MS = 30_000;

export interface MixedLoad {
  readonly outcomes: readonly Outcome[];
  /** Ids the API answered 201 for, by collection (`networks`, `ports`). */
  readonly acknowledged: {
    readonly networks: readonly string[];
    readonly ports: readonly string[];
    readonly routers: readonly string[];
    readonly floatingips: readonly string[];
  };
  /** Stops sending new requests and resolves when those in flight have been answered. */
  pause(): Promise<void>;
  resume(): void;
  /** Resolves once `done()` holds for what was seen so far; rejects after `giveUpMs`. */
  until(done: (outcomes: readonly Outcome[]) => boolean, giveUpMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];
const isOk = (status: Outcome['status']) => typeof status === 'number' && status >= 200 && status < 300;

export interface MixedLoadOptions {
  /** Also create routers (a quarter of the network creates become router creates). */
  readonly routers?: boolean;
  /** Also create floating IPs on this external network. */
  readonly floatingNetwork?: string;
}

const refused = (error: unknown) =>
  (error as { cause?: { code?: string } } | undefined)?.cause?.code === 'ECONNREFUSED';

export function startMixedLoad(
  target: string | readonly string[],
  clients = 8,
  options: MixedLoadOptions = {},
): MixedLoad {
  const replicas = typeof target === 'string' ? [target] : target;
  const outcomes: Outcome[] = [];
  const networks: string[] = [];
  const ports: string[] = [];
  const routers: string[] = [];
  const floatingips: string[] = [];
  let stopping = false;

  async function request(
    replica: { index: number },
    op: Outcome['op'],
    method: string,
    path: string,
    body?: unknown,
  ): Promise<unknown> {
    const started = Date.now();
    let status: Outcome['status'] = 'no-answer';
    let problem: string | undefined;
    let detail: string | undefined;
    let json: unknown;
    let url = replicas[replica.index % replicas.length]!;
    try {
      let response: Response | undefined;
      // Refused connections go to the next replica, each replica tried once.
      for (let tried = 1; !response; tried++) {
        url = replicas[replica.index % replicas.length]!;
        try {
          response = await fetch(url + path, {
            method,
            headers: body ? { 'content-type': 'application/json' } : {},
            body: body ? JSON.stringify(body) : undefined,
            signal: AbortSignal.timeout(HANG_GUARD_MS),
          });
        } catch (error) {
          if (!refused(error) || tried >= replicas.length) throw error;
          replica.index++;
        }
      }
      status = response.status;
      json = await response.json().catch(() => undefined);
      if (!isOk(status))
        detail = String((json as { NeutronError?: { detail?: unknown } } | undefined)?.NeutronError?.detail);
      if (status === 503) {
        const type = (json as { NeutronError?: { type?: unknown } } | undefined)?.NeutronError?.type;
        if (type !== 'ServiceUnavailable') problem = `503 with type ${String(type)}`;
        else if (!/^\d+$/.test(response.headers.get('retry-after') ?? '')) problem = '503 without Retry-After';
      }
    } catch (error) {
      problem = String(error);
      if (replicas.length > 1) replica.index++;
    }
    outcomes.push({ op, write: method !== 'GET', url, started, ended: Date.now(), status, problem, detail });
    return isOk(status) ? json : undefined;
  }

  type Created = Record<string, { id: string } | undefined> | undefined;
  async function create(replica: { index: number }, op: Outcome['op'], into: string[], path: string, body: object) {
    const created = (await request(replica, op, 'POST', path, body)) as Created;
    const id = created && Object.values(created)[0]?.id;
    if (id) into.push(id);
  }

  async function oneRequest(replica: { index: number }): Promise<void> {
    const roll = Math.random();
    const network = pick(networks);
    if (roll < 0.25 || !network) {
      if (options.routers && network && Math.random() < 0.25) {
        await create(replica, 'create-router', routers, '/v2.0/routers', {
          router: { name: `fault-${outcomes.length}` },
        });
      } else {
        const body = { network: { name: `fault-${outcomes.length}` } };
        await create(replica, 'create-network', networks, '/v2.0/networks', body);
      }
    } else if (roll < 0.5) {
      if (options.floatingNetwork && Math.random() < 0.2) {
        const body = { floatingip: { floating_network_id: options.floatingNetwork } };
        await create(replica, 'create-floatingip', floatingips, '/v2.0/floatingips', body);
      } else {
        await create(replica, 'create-port', ports, '/v2.0/ports', { port: { network_id: network } });
      }
    } else if (roll < 0.75) {
      await request(replica, 'list-networks', 'GET', '/v2.0/networks?limit=20');
    } else {
      const port = pick(ports);
      const path = port && Math.random() < 0.5 ? `/v2.0/ports/${port}` : `/v2.0/networks/${network}`;
      await request(replica, 'show', 'GET', path);
    }
  }

  let gate: Promise<void> | undefined;
  let openGate = () => {};
  let inFlight = 0;
  async function client(index: number): Promise<void> {
    // Clients start spread over the replicas, as a load balancer in front of them would spread them.
    const replica = { index };
    while (!stopping) {
      if (gate) await gate;
      inFlight++;
      await oneRequest(replica).finally(() => inFlight--);
      // A breath between requests: the machine running the suite is shared.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const running = Promise.all(Array.from({ length: clients }, (_, i) => client(i)));

  return {
    outcomes,
    acknowledged: { networks, ports, routers, floatingips },
    async pause() {
      gate ??= new Promise((resolve) => (openGate = resolve));
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    resume() {
      gate = undefined;
      openGate();
    },
    async until(done, giveUpMs = 60_000) {
      const giveUpAt = Date.now() + giveUpMs;
      while (!done(outcomes)) {
        if (Date.now() > giveUpAt) {
          const last = outcomes.slice(-5).map((o) => `${o.op} ${o.status} ${o.detail ?? ''}`);
          throw new Error(`load: condition not reached within ${giveUpMs} ms; last answers:\n${last.join('\n')}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop() {
      stopping = true;
      this.resume();
      await running;
    },
  };
}

/** The figures printed per fault, from what the clients saw. */
export function faultFigures(outcomes: readonly Outcome[], restoredAt: number) {
  const failed = outcomes.filter((o) => !isOk(o.status));
  const firstFailure = Math.min(...failed.map((o) => o.started));
  const lastFailure = Math.max(...failed.map((o) => o.ended));
  const firstSuccessAfter = Math.min(
    ...outcomes.filter((o) => isOk(o.status) && o.ended >= restoredAt).map((o) => o.ended),
  );
  return {
    requests: outcomes.length,
    errors: failed.length,
    /** From the first request that failed to the end of the last one (0 when none failed). */
    errorWindowMs: failed.length ? lastFailure - firstFailure : 0,
    /** From the database being back to the first successful answer after it. */
    recoveryMs: firstSuccessAfter - restoredAt,
    /** The longest a client waited for a 503 (bounded by the database timeouts when the server is frozen). */
    slowest503Ms: Math.max(0, ...failed.filter((o) => o.status === 503).map((o) => o.ended - o.started)),
  };
}

export { isOk };
