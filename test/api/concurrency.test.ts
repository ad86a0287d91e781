/**
 * Allocation under concurrent requests never hands anything out twice: addresses and MACs of
 * ports filling a small subnet, geneve VNIs, a provider VLAN, a project's default security group.
 * On SQLite and PostgreSQL in-process, and on two `octonet serve` processes sharing one
 * PostgreSQL database (clients alternate between them), as replicas run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS, Client, newProjectId, useApi, type Response } from '../fixtures/api.js';
import { createTestDatabase } from '../fixtures/postgres.js';
import { startServeProcess, type ServeProcess } from '../fixtures/serve-process.js';

/** Concurrent clients in each race. */
const CLIENTS = 16;
/** 10.x.0.0/28 holds 14 usable addresses; the gateway takes .1, the pool is .2 to .14. */
const POOL_SIZE = 13;
/** A port create loop stops here at the latest, should the subnet never report itself full. */
const MAX_PORTS_PER_CLIENT = POOL_SIZE + 1;

type Clients = readonly Client[];

/** The client of the i-th concurrent caller: the callers alternate between the servers. */
const pick = (clients: Clients, i: number): Client => clients[i % clients.length]!;

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

async function fillSubnetConcurrently(clients: Clients, octet: number): Promise<void> {
  const admin = clients[0]!;
  const networkId = await createNetwork(admin, { name: `fill-${octet}` });
  const cidr = `10.${octet}.0.0/28`;
  const subnet = await admin.post('/v2.0/subnets', { subnet: { network_id: networkId, ip_version: 4, cidr } });
  assert.equal(subnet.status, 201, subnet.text);
  assert.equal(subnet.body.subnet.gateway_ip, `10.${octet}.0.1`);

  const created: Response[] = [];
  const refused: Response[] = [];
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const client = pick(clients, i);
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

async function createNetworksConcurrently(clients: Clients): Promise<void> {
  const responses = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) =>
      pick(clients, i).post('/v2.0/networks', { network: { name: `vni-${i}` } }),
    ),
  );
  assertNoServerError(responses);
  assert.deepEqual(statuses(responses), Array(CLIENTS).fill(201));
  const vnis = responses.map((r) => {
    assert.equal(r.body.network['provider:network_type'], 'geneve');
    return r.body.network['provider:segmentation_id'] as number;
  });
  assert.equal(new Set(vnis).size, CLIENTS, `VNIs handed out twice: ${vnis.sort((a, b) => a - b).join(',')}`);

  // Every geneve network of the database, these and any earlier ones, has its own VNI.
  const all = await clients[0]!.get('/v2.0/networks?provider:network_type=geneve');
  assert.equal(all.status, 200, all.text);
  const stored = (all.body.networks as Record<string, unknown>[]).map((n) => n['provider:segmentation_id']);
  assert.equal(new Set(stored).size, stored.length, `VNIs stored twice: ${stored.join(',')}`);
  for (const vni of vnis) assert.ok(stored.includes(vni));
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
    Array.from({ length: contenders }, (_, i) => pick(clients, i).post('/v2.0/networks', body)),
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

/** A new project's first requests all race to create its default group; one group must come out. */
async function raceOnDefaultSecurityGroup(clients: Clients): Promise<void> {
  const project = newProjectId();
  const requests: Promise<Response>[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const client = pick(clients, i).as({ project });
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
    const api = useApi(backend);
    const clients = () => [api.admin];

    it('fills a /28 from 16 clients: each address and MAC once, then 409 IpAddressGenerationFailure', () =>
      fillSubnetConcurrently(clients(), 21));
    it('gives concurrent network creates distinct geneve VNIs', () => createNetworksConcurrently(clients()));
    it('gives a provider VLAN to exactly one of concurrent creates, 409 VlanIdInUse to the rest', () =>
      createSameVlanConcurrently(clients(), 150));
    it('creates exactly one default security group for a project under concurrent first requests', () =>
      raceOnDefaultSecurityGroup(clients()));
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
      const started = await Promise.allSettled([startServeProcess(database.url), startServeProcess(database.url)]);
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
    it('gives concurrent network creates on both replicas distinct geneve VNIs', () =>
      createNetworksConcurrently(clients));
    it('gives a provider VLAN to exactly one of concurrent creates on both replicas', () =>
      createSameVlanConcurrently(clients, 151));
    it('creates exactly one default security group under concurrent first requests on both replicas', () =>
      raceOnDefaultSecurityGroup(clients));
  });
}
