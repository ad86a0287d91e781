/**
 * The write-scaling workload: what one octonet target costs per write and how long its writes
 * wait on each other, so one replica and N replicas can be compared on any machine. Concurrent
 * port creates, then deletes of the same ports, on one network with a /16 (the write path of
 * api-bench.py's `port-create-conc` and `port-delete-conc`, driven from here so each phase can be
 * metered on its own): per phase the throughput, the CPU-seconds of every server-side process
 * group (replicas, PostgreSQL, haproxy) from /proc, this driver's own CPU, and PostgreSQL's lock
 * waits, idle-in-transaction time and rollbacks (`pg-activity.ts`). Every fixed IP and MAC handed
 * out is checked for duplicates.
 */
import { availableParallelism } from 'node:os';
import { mainThreadCpuSeconds, ProcessMeter, type ProcessGroup } from './process-meter.js';
import { PgActivitySampler, type PgActivity } from './pg-activity.js';

export interface ScalingPhase {
  phase: 'port-create' | 'port-delete';
  count: number;
  errors: number;
  /** The first error answer, for the notes. */
  errorSample?: string;
  wallS: number;
  opsPerS: number;
  /** CPU-seconds per server-side process group during the phase. */
  cpuS: Record<string, number>;
  /**
   * CPU-seconds of each replica's main thread (the event loop): one replica cannot serve faster
   * than one write per this many seconds, whatever the machine.
   */
  mainThreadCpuS: Record<string, number>;
  /** CPU-seconds of this load driver (it shares the machine with the servers). */
  driverCpuS: number;
  db: PgActivity;
}

export interface WriteScaling {
  replicas: number;
  /** `os.availableParallelism()` of the machine the figures come from. */
  cores: number;
  concurrency: number;
  phases: ScalingPhase[];
  /** The project's port limit (finite: creates take the quota's lock). */
  portQuota: number;
  /** Fixed IPs or MACs handed to two ports (must be 0). */
  duplicates: number;
}

export interface ScalingSetup {
  baseUrl: string;
  replicas: number;
  groups: ProcessGroup[];
  /** The replicas' process groups, by name. */
  replicaGroups: readonly string[];
  /** The bench database, for the activity sampler. */
  databaseUrl: string;
  ports: number;
  /**
   * Concurrent clients per replica (N replicas get N times as many): each replica then has as
   * many writes in flight as one replica alone has, as when a deployment adds replicas for more
   * clients; with the same total, each replica would run emptier and cost more per write.
   */
  clientsPerReplica: number;
}

/**
 * The project's port limit during the workload: finite, as in a deployment, so every create
 * takes the quota's count and lock; high enough never to refuse.
 */
const PORT_QUOTA = 1_000_000;

/**
 * Unmeasured creates (and deletes) per replica first: each replica compiles its write path on its
 * own, and a deployment's replicas have long done so; too few and N replicas pay N compilations
 * inside the measurement where one replica pays one.
 */
const WARMUP_WRITES_PER_REPLICA = 150;

interface PortAnswer {
  id: string;
  mac_address: string;
  fixed_ips: Array<{ ip_address: string }>;
}

async function call(baseUrl: string, method: string, path: string, body?: unknown): Promise<[number, unknown]> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  return [response.status, text ? (JSON.parse(text) as unknown) : null];
}

async function expectOk(baseUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const [status, answer] = await call(baseUrl, method, path, body);
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** Runs `work(i)` for i < count with `concurrency` workers; counts failures. */
async function runConcurrent(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<string | undefined>,
): Promise<{ errors: number; errorSample?: string }> {
  let next = 0;
  let errors = 0;
  let errorSample: string | undefined;
  const worker = async () => {
    while (next < count) {
      const failure = await work(next++).catch((error: Error) => error.message);
      if (failure !== undefined) {
        errors++;
        errorSample ??= failure;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { errors, errorSample };
}

async function metered(
  setup: ScalingSetup & { concurrency: number },
  sampler: PgActivitySampler,
  phase: ScalingPhase['phase'],
  count: number,
  work: (i: number) => Promise<string | undefined>,
): Promise<ScalingPhase> {
  const meter = new ProcessMeter(setup.groups);
  const replicas = setup.groups.filter((g) => setup.replicaGroups.includes(g.name));
  const threads0 = replicas.map((g) => mainThreadCpuSeconds(g.root));
  await sampler.begin();
  meter.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { errors, errorSample } = await runConcurrent(count, setup.concurrency, work);
  const wallS = (performance.now() - t0) / 1000;
  const driver = process.cpuUsage(cpu0);
  const cost = meter.stop();
  const mainThreadCpuS = Object.fromEntries(
    replicas.map((g, i) => [g.name, Math.round((mainThreadCpuSeconds(g.root) - threads0[i]!) * 100) / 100]),
  );
  const db = await sampler.end();
  return {
    phase,
    count,
    errors,
    ...(errorSample !== undefined && { errorSample }),
    wallS: Math.round(wallS * 1000) / 1000,
    opsPerS: Math.round(((count - errors) / wallS) * 10) / 10,
    cpuS: cost.cpuSeconds,
    mainThreadCpuS,
    driverCpuS: Math.round((driver.user + driver.system) / 10_000) / 100,
    db,
  };
}

/** Creates `count` ports on `networkId`; returns their answers (undefined for a failure). */
function portCreator(baseUrl: string, networkId: string, tag: string, made: PortAnswer[]) {
  return async (i: number): Promise<string | undefined> => {
    const [status, answer] = await call(baseUrl, 'POST', '/v2.0/ports', {
      port: { network_id: networkId, name: `${tag}-${i}`, device_id: `${tag}-dev-${i}` },
    });
    if (status !== 201) return `POST /v2.0/ports: ${status} ${JSON.stringify(answer).slice(0, 200)}`;
    made.push((answer as { port: PortAnswer }).port);
    return undefined;
  };
}

function portDeleter(baseUrl: string, ports: readonly PortAnswer[]) {
  return async (i: number): Promise<string | undefined> => {
    const [status, answer] = await call(baseUrl, 'DELETE', `/v2.0/ports/${ports[i]!.id}`);
    return status === 204 ? undefined : `DELETE /v2.0/ports: ${status} ${JSON.stringify(answer).slice(0, 200)}`;
  };
}

function countDuplicates(ports: readonly PortAnswer[]): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const p of ports) {
    for (const key of [`mac ${p.mac_address}`, ...p.fixed_ips.map((f) => `ip ${f.ip_address}`)]) {
      if (seen.has(key)) duplicates++;
      seen.add(key);
    }
  }
  return duplicates;
}

/** Warms every replica (round robin spreads the warm-up), then measures creates and deletes. */
export async function runWriteScaling(options: ScalingSetup): Promise<WriteScaling> {
  const setup = { ...options, concurrency: options.clientsPerReplica * options.replicas };
  const { baseUrl } = setup;
  const tag = `scaling-${Date.now().toString(36)}`;
  const network = (await expectOk(baseUrl, 'POST', '/v2.0/networks', { network: { name: `${tag}-net` } })) as {
    network: { id: string; project_id: string };
  };
  const networkId = network.network.id;
  await expectOk(baseUrl, 'PUT', `/v2.0/quotas/${network.network.project_id}`, { quota: { port: PORT_QUOTA } });
  const subnet = (await expectOk(baseUrl, 'POST', '/v2.0/subnets', {
    subnet: { network_id: networkId, ip_version: 4, cidr: '10.77.0.0/16', name: `${tag}-subnet` },
  })) as { subnet: { id: string } };

  const warm: PortAnswer[] = [];
  const warmCount = WARMUP_WRITES_PER_REPLICA * setup.replicas;
  await runConcurrent(warmCount, setup.concurrency, portCreator(baseUrl, networkId, `${tag}-warm`, warm));
  await runConcurrent(warm.length, setup.concurrency, portDeleter(baseUrl, warm));

  const sampler = new PgActivitySampler(setup.databaseUrl);
  await sampler.connect();
  const pg = setup.groups.find((g) => g.name === 'postgresql');
  if (pg) pg.exclude = [sampler.backendPid];
  const made: PortAnswer[] = [];
  try {
    const create = await metered(
      setup,
      sampler,
      'port-create',
      setup.ports,
      portCreator(baseUrl, networkId, tag, made),
    );
    const duplicates = countDuplicates(made);
    const remove = await metered(setup, sampler, 'port-delete', made.length, portDeleter(baseUrl, made));
    await expectOk(baseUrl, 'DELETE', `/v2.0/subnets/${subnet.subnet.id}`);
    await expectOk(baseUrl, 'DELETE', `/v2.0/networks/${networkId}`);
    return {
      replicas: setup.replicas,
      cores: availableParallelism(),
      concurrency: setup.concurrency,
      portQuota: PORT_QUOTA,
      phases: [create, remove],
      duplicates,
    };
  } finally {
    if (pg) delete pg.exclude;
    await sampler.close();
  }
}
