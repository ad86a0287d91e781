/**
 * Allocation under concurrent requests never hands anything out twice: addresses and MACs of
 * ports filling a small subnet (and a bigger one, where IPAM asks about random candidates in
 * batches), geneve VNIs, a provider VLAN, a project's default security group; and a project's
 * port quota holds exactly when its own creates race (the quota lock is taken late).
 * On SQLite and PostgreSQL in-process, and on two `octonet serve` processes sharing one
 * PostgreSQL database (clients alternate between them), as replicas run.
 *
 * Each concurrent caller acts in a project of its own: the quota check serialises one project's
 * creates of a resource, so racers in one project would never reach the allocation together.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS, Client, newProjectId, useApi, type Response } from '../fixtures/api.js';
import { createTestDatabase } from '../fixtures/postgres.js';
import { startServeProcess, type ServeProcess } from '../fixtures/serve-process.js';

/** Concurrent clients in each race. */
const CLIENTS = 16;
/** Usable addresses of a /prefix IPv4 subnet, less the gateway (.1): the pool is .2 onwards. */
const poolSize = (prefix: number) => 2 ** (32 - prefix) - 3;
/** A port quota small enough that 16 racing creates in one project overshoot it. */
const RACED_PORT_QUOTA = 5;
/** A small geneve VNI range, so that concurrent network creates collide and the range runs out. */
const VNI_FIRST = 1000;
const VNI_COUNT = 40;
const CONFIG = { network: { geneve_vni_ranges: [`${VNI_FIRST}:${VNI_FIRST + VNI_COUNT - 1}`] } };

type Clients = readonly Client[];

/** The i-th concurrent caller, in a project of its own; the callers alternate between the servers. */
function caller(clients: Clients, i: number, roles?: string[]): Client {
  return clients[i % clients.length]!.as({ project: newProjectId(), ...(roles ? { roles } : {}) });
}

function statuses(responses: readonly Response[]): number[] {
  return responses.map((r) => r.status).sort();
}

function assertNoServerError(responses: readonly Response[]): void {
  const failed = responses.filter((r) => r.status >= 500);
  assert.deepEqual(
    failed.map((r) => `${r.status} ${r.text}`),
    [],
    'no request may fail with a server error',
  );
}

async function createNetwork(client: Client, body: Record<string, unknown>): Promise<string> {
  const r = await client.post('/v2.0/networks', { network: body });
  assert.equal(r.status, 201, r.text);
  return r.body.network.id;
}

/**
 * Ports from 16 clients until the subnet is full. A /28 (13 addresses) is read whole; a /25 (125)
 * is big enough for IPAM's random candidates, asked about in batches, until it is dense.
 */
async function fillSubnetConcurrently(clients: Clients, octet: number, prefix = 28): Promise<void> {
  const POOL_SIZE = poolSize(prefix);
  /** A port create loop stops here at the latest, should the subnet never report itself full. */
  const MAX_PORTS_PER_CLIENT = POOL_SIZE + 1;
  const admin = clients[0]!;
  const networkId = await createNetwork(admin, { name: `fill-${octet}`, shared: true });
  const cidr = `10.${octet}.0.0/${prefix}`;
  const subnet = await admin.post('/v2.0/subnets', { subnet: { network_id: networkId, ip_version: 4, cidr } });
  assert.equal(subnet.status, 201, subnet.text);
  assert.equal(subnet.body.subnet.gateway_ip, `10.${octet}.0.1`);

  const created: Response[] = [];
  const refused: Response[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const client = caller(clients, i);
      for (let n = 0; n < MAX_PORTS_PER_CLIENT; n++) {
        const r = await client.post('/v2.0/ports', { port: { network_id: networkId, name: `c${i}-${n}` } });
        if (r.status !== 201) {
          refused.push(r);
          return;
        }
        created.push(r);
      }
    }),
  );

  assertNoServerError(refused);
  assert.equal(created.length, POOL_SIZE, 'exactly the pool is handed out');
  assert.equal(refused.length, CLIENTS, 'every client ends on the full subnet');
  for (const r of refused) {
    assert.equal(r.status, 409, r.text);
    assert.deepEqual(r.body, {
      NeutronError: {
        type: 'IpAddressGenerationFailure',
        message: `No more IP addresses available on network ${networkId}.`,
        detail: '',
      },
    });
  }

  const ports = created.map(
    (r) => r.body.port as { id: string; mac_address: string; fixed_ips: { ip_address: string }[] },
  );
  const ips = ports.map((p) => {
    assert.equal(p.fixed_ips.length, 1);
    return p.fixed_ips[0]!.ip_address;
  });
  const expectedPool = Array.from({ length: POOL_SIZE }, (_, i) => `10.${octet}.0.${i + 2}`);
  assert.deepEqual([...new Set(ips)].sort(), [...expectedPool].sort(), 'each pool address exactly once');
  assert.equal(new Set(ports.map((p) => p.mac_address)).size, POOL_SIZE, 'distinct MACs');

  const listed = await admin.get(`/v2.0/ports?network_id=${networkId}`);
  assert.equal(listed.status, 200, listed.text);
  const listedPorts = listed.body.ports as typeof ports;
  assert.deepEqual(listedPorts.map((p) => p.id).sort(), ports.map((p) => p.id).sort());
  assert.deepEqual(listedPorts.map((p) => p.fixed_ips[0]!.ip_address).sort(), [...ips].sort());
  assert.deepEqual(listedPorts.map((p) => p.mac_address).sort(), ports.map((p) => p.mac_address).sort());
}

/**
 * 16 creates in one project with a port quota of 5, all at once: exactly 5 ports, the others 409
 * OverQuota. The quota lock is taken after the port is written, just before commit: the racers
 * allocate together, and the recount under the lock must still let only 5 commit.
 */
async function racePortQuota(clients: Clients): Promise<void> {
  const admin = clients[0]!;
  const project = newProjectId();
  const quota = await admin.put(`/v2.0/quotas/${project}`, { quota: { port: RACED_PORT_QUOTA } });
  assert.equal(quota.status, 200, quota.text);
  const networkId = await createNetwork(admin, { name: 'quota-race', shared: true });
  const subnet = await admin.post('/v2.0/subnets', {
    subnet: { network_id: networkId, ip_version: 4, cidr: '10.40.0.0/24' },
  });
  assert.equal(subnet.status, 201, subnet.text);
  const responses = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) =>
      clients[i % clients.length]!.as({ project }).post('/v2.0/ports', {
        port: { network_id: networkId, name: `quota-${i}` },
      }),
    ),
  );
  assertNoServerError(responses);
  assert.deepEqual(statuses(responses), [
    ...Array(RACED_PORT_QUOTA).fill(201),
    ...Array(CLIENTS - RACED_PORT_QUOTA).fill(409),
  ]);
  for (const r of responses.filter((r) => r.status === 409)) {
    assert.deepEqual(r.body, {
      NeutronError: { type: 'OverQuota', message: "Quota exceeded for resources: ['port'].", detail: '' },
    });
  }
  const listed = await admin.get(`/v2.0/ports?project_id=${project}`);
  assert.equal(listed.body.ports.length, RACED_PORT_QUOTA, 'no port of a refused create was left behind');
}

/**
 * Networks created from 16 clients until the VNI range is exhausted: the range is small, so the
 * creators keep colliding on the same free VNI and the store's retry has to sort them out.
 */
async function exhaustVnisConcurrently(clients: Clients): Promise<void> {
  const admin = clients[0]!;
  /** Network id to VNI, of every geneve network (only an admin sees provider attributes). */
  const geneveVnis = async (): Promise<Map<string, number>> => {
    const r = await admin.get('/v2.0/networks?provider:network_type=geneve');
    assert.equal(r.status, 200, r.text);
    const networks = r.body.networks as { id: string; 'provider:segmentation_id': number }[];
    return new Map(networks.map((n) => [n.id, n['provider:segmentation_id']]));
  };
  const free = VNI_COUNT - (await geneveVnis()).size;
  assert.ok(free >= CLIENTS, 'the earlier tests left enough of the range for a race');

  const created: string[] = [];
  const refused: Response[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const client = caller(clients, i);
      for (let n = 0; n <= VNI_COUNT; n++) {
        const r = await client.post('/v2.0/networks', { network: { name: `vni-${i}-${n}` } });
        if (r.status !== 201) {
          refused.push(r);
          return;
        }
        created.push(r.body.network.id);
      }
    }),
  );

  for (const r of refused) {
    assert.deepEqual(
      r.body,
      {
        NeutronError: {
          type: 'NoNetworkAvailable',
          message: 'Unable to create the network. No project network is available for allocation.',
          detail: '',
        },
      },
      `${r.status} ${r.text}`,
    );
    assert.equal(r.status, 503);
  }
  assert.equal(refused.length, CLIENTS, 'every client ends on the exhausted range');
  assert.equal(created.length, free, 'exactly the free VNIs are handed out');
  const stored = await geneveVnis();
  const vnis = created.map((id) => stored.get(id));
  assert.equal(new Set(vnis).size, created.length, `VNIs handed out twice: ${vnis.join(',')}`);
  assert.deepEqual(
    [...stored.values()].sort((a, b) => a - b),
    Array.from({ length: VNI_COUNT }, (_, i) => VNI_FIRST + i),
    'each VNI of the range is stored exactly once',
  );
}

async function createSameVlanConcurrently(clients: Clients, vlan: number): Promise<void> {
  const body = {
    network: {
      name: `vlan-${vlan}`,
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': vlan,
    },
  };
  const contenders = 8;
  const responses = await Promise.all(
    Array.from({ length: contenders }, (_, i) =>
      caller(clients, i, ['admin', 'member', 'reader']).post('/v2.0/networks', body),
    ),
  );
  assertNoServerError(responses);
  assert.deepEqual(statuses(responses), [201, ...Array(contenders - 1).fill(409)]);
  for (const r of responses.filter((r) => r.status === 409)) {
    assert.deepEqual(r.body, {
      NeutronError: {
        type: 'VlanIdInUse',
        message: `Unable to create the network. The VLAN ${vlan} on physical network physnet1 is in use.`,
        detail: '',
      },
    });
  }
  const listed = await clients[0]!.get(`/v2.0/networks?provider:segmentation_id=${vlan}&provider:network_type=vlan`);
  assert.equal(listed.body.networks.length, 1, listed.text);
}

/**
 * A new project's first requests (lists, network and group creates, all in that one project) race
 * to create its default group; exactly one group must come out.
 */
async function raceOnDefaultSecurityGroup(clients: Clients): Promise<void> {
  const project = newProjectId();
  const requests: Promise<Response>[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const client = clients[i % clients.length]!.as({ project });
    if (i % 3 === 0) requests.push(client.get('/v2.0/security-groups'));
    else if (i % 3 === 1) requests.push(client.post('/v2.0/networks', { network: { name: `sg-race-${i}` } }));
    else requests.push(client.post('/v2.0/security-groups', { security_group: { name: `sg-${i}` } }));
  }
  const responses = await Promise.all(requests);
  assertNoServerError(responses);
  for (const r of responses) assert.ok(r.status === 200 || r.status === 201, `${r.status} ${r.text}`);
  for (const r of responses.filter((r) => r.body.security_groups)) {
    const defaults = (r.body.security_groups as { name: string }[]).filter((g) => g.name === 'default');
    assert.equal(defaults.length, 1, 'a first list shows the one default group');
  }

  const admin = clients[0]!;
  const groups = await admin.get(`/v2.0/security-groups?project_id=${project}&name=default`);
  assert.equal(groups.status, 200, groups.text);
  assert.equal(groups.body.security_groups.length, 1, `default groups: ${groups.text}`);
  const defaultId = groups.body.security_groups[0].id as string;
  const rules = await admin.get(`/v2.0/security-group-rules?security_group_id=${defaultId}`);
  assert.equal(rules.body.security_group_rules.length, 4, 'the default group has its four rules once');
  const named = responses.filter((r) => r.body.security_group).length;
  const all = await admin.get(`/v2.0/security-groups?project_id=${project}`);
  assert.equal(all.body.security_groups.length, named + 1);
}

for (const backend of BACKENDS) {
  describe(`concurrent allocation (${backend})`, () => {
    const api = useApi(backend, { config: CONFIG });
    const clients = () => [api.admin];

    it('fills a /28 from 16 clients: each address and MAC once, then 409 IpAddressGenerationFailure', () =>
      fillSubnetConcurrently(clients(), 21));
    it('fills a /25 (random candidates in batches) from 16 clients: each address and MAC once', () =>
      fillSubnetConcurrently(clients(), 23, 25));
    it("holds a project's port quota exactly when 16 of its creates race", () => racePortQuota(clients()));
    it('creates exactly one default security group for a project under concurrent first requests', () =>
      raceOnDefaultSecurityGroup(clients()));
    it('gives a provider VLAN to exactly one of concurrent creates, 409 VlanIdInUse to the rest', () =>
      createSameVlanConcurrently(clients(), 150));
    // Last: it leaves no VNI for later network creates.
    it('hands each geneve VNI out once while 16 clients exhaust the range, then 503 NoNetworkAvailable', () =>
      exhaustVnisConcurrently(clients()));
  });
}

if (BACKENDS.includes('postgres')) {
  describe('concurrent allocation (two octonet serve processes, one PostgreSQL database)', () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    const servers: ServeProcess[] = [];
    let clients: Client[] = [];

    before(async () => {
      database = await createTestDatabase();
      // Started together, so they also migrate the new database at the same time.
      const started = await Promise.allSettled([
        startServeProcess(database.url, { config: CONFIG }),
        startServeProcess(database.url, { config: CONFIG }),
      ]);
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
      const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      clients = servers.map((s) => new Client(s.url, null));
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await database?.drop();
    });

    it('fills a /28 from 16 clients on both replicas: each address and MAC once', () =>
      fillSubnetConcurrently(clients, 22));
    it('fills a /25 (random candidates in batches) from 16 clients on both replicas: each address once', () =>
      fillSubnetConcurrently(clients, 24, 25));
    it("holds a project's port quota exactly when 16 of its creates race on both replicas", () =>
      racePortQuota(clients));
    it('creates exactly one default security group under concurrent first requests on both replicas', () =>
      raceOnDefaultSecurityGroup(clients));
    it('gives a provider VLAN to exactly one of concurrent creates on both replicas', () =>
      createSameVlanConcurrently(clients, 151));
    it('hands each geneve VNI out once while clients on both replicas exhaust the range', () =>
      exhaustVnisConcurrently(clients));
  });
}
