/**
 * The mechanism-driver contract as core keeps it (`writeTransaction`), proved with test drivers
 * registered in a real API server on both databases: a precommit throw rolls the whole request
 * back (rows, IP and segment allocations, quota usage); a postcommit failure is logged, does not
 * fail the request, and the driver's next pass repairs it from `DriverHost.reader`; drivers run in
 * order; and what a precommit sees is what the API returns.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { MechanismDriver, ResourceContext } from '../../src/drivers/contract.js';
import type { DriverHost } from '../../src/drivers/host.js';
import { InvalidInput } from '../../src/core/errors.js';
import { BACKENDS, newProjectId, useApi, type Client } from '../fixtures/api.js';

/** Records every hook call (into a log shared by all drivers) and every precommit context. */
class RecordingDriver implements MechanismDriver {
  readonly seen: ResourceContext[] = [];
  /** Precommit throws (as a driver refusing the write would) for the contexts this selects. */
  refuse: (context: ResourceContext) => boolean = () => false;

  constructor(
    readonly name: string,
    private readonly calls: string[],
  ) {}

  precommit(context: ResourceContext): void {
    this.calls.push(`${this.name}.precommit`);
    this.seen.push(context);
    if (this.refuse(context)) throw InvalidInput({ error_message: 'refused by the test driver' });
  }

  async postcommit(): Promise<void> {
    this.calls.push(`${this.name}.postcommit`);
  }

  /** The last context the precommit saw for this resource and operation (and id, when given). */
  last(resource: ResourceContext['resource'], operation: ResourceContext['operation'], id?: string): ResourceContext {
    const found = this.seen.findLast(
      (c) => c.resource === resource && c.operation === operation && (id === undefined || c.current.id === id),
    );
    assert.ok(found, `no ${operation} precommit for ${resource} ${id ?? ''}`);
    return found;
  }
}

/**
 * Keeps a copy of the ports' revisions, as the OVN driver keeps NB rows: written in postcommit,
 * and rebuilt from the database by a full pass (`repair`), as the OVN driver's full sync does.
 */
class MirrorDriver implements MechanismDriver {
  readonly name = 'mirror';
  readonly ports = new Map<string, number>();
  failNext = false;
  private host?: DriverHost;

  constructor(private readonly calls: string[]) {}

  async start(host: DriverHost): Promise<void> {
    this.host = host;
  }

  precommit(): void {
    this.calls.push('mirror.precommit');
  }

  async postcommit(context: ResourceContext): Promise<void> {
    this.calls.push('mirror.postcommit');
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the mirror is unreachable');
    }
    if (context.resource !== 'port') return;
    if (context.operation === 'delete') this.ports.delete(context.current.id);
    else this.ports.set(context.current.id, context.current.revision_number);
  }

  reader(): DriverHost['reader'] {
    return this.host!.reader;
  }

  /** The level-triggered pass: the database as the reader shows it is the truth. */
  async repair(): Promise<void> {
    const snapshot = await this.host!.reader.snapshot();
    this.ports.clear();
    for (const port of snapshot.ports) this.ports.set(port.id, port.revision_number);
  }
}

/** Every attribute of the state that the API also shows has the API's value. */
function assertSameState(state: object, body: Record<string, unknown>): void {
  const shared = Object.entries(state).filter(([key]) => key in body);
  // Nothing is skipped silently: only derived attributes (rules, segments, gateway port) are not shown.
  assert.ok(shared.length >= Object.keys(state).length - 3, `compared ${shared.map(([key]) => key).join(', ')}`);
  for (const [key, value] of shared) assert.deepEqual(value, body[key], `attribute ${key}`);
}

for (const backend of BACKENDS) {
  describe(`driver contract (${backend})`, () => {
    const calls: string[] = [];
    const recorder = new RecordingDriver('recorder', calls);
    const mirror = new MirrorDriver(calls);
    const api = useApi(backend, { drivers: [recorder, mirror] });
    let project: string;
    let member: Client;

    beforeEach(() => {
      calls.length = 0;
      recorder.refuse = () => false;
      mirror.failNext = false;
      project = newProjectId();
      member = api.as({ project });
    });

    async function networkWithSubnet(cidr: string): Promise<{ network: string; subnet: string }> {
      const network = await member.post('/v2.0/networks', { network: { name: 'n' } });
      assert.equal(network.status, 201);
      const subnet = await member.post('/v2.0/subnets', {
        subnet: { network_id: network.body.network.id, ip_version: 4, cidr },
      });
      assert.equal(subnet.status, 201);
      return { network: network.body.network.id, subnet: subnet.body.subnet.id };
    }

    it('runs the drivers in order: every precommit inside the transaction, then every postcommit', async () => {
      // The project's default group first (a list makes it): its own events are not this test's.
      await member.get('/v2.0/security-groups');
      calls.length = 0;
      const created = await member.post('/v2.0/networks', { network: { name: 'ordered' } });
      assert.equal(created.status, 201);
      assert.deepEqual(calls, ['recorder.precommit', 'mirror.precommit', 'recorder.postcommit', 'mirror.postcommit']);
    });

    it('rolls back the port, its address and its quota usage when a precommit throws', async () => {
      const { network, subnet } = await networkWithSubnet('10.61.0.0/24');
      assert.equal((await api.admin.put(`/v2.0/quotas/${project}`, { quota: { port: 1 } })).status, 200);
      recorder.refuse = (c) => c.resource === 'port' && c.current.name === 'refused';
      // The same address and MAC twice: had the first request kept either, the second would conflict.
      const port = (name: string) => ({
        port: {
          network_id: network,
          name,
          mac_address: 'fa:16:3e:00:61:50',
          fixed_ips: [{ subnet_id: subnet, ip_address: '10.61.0.50' }],
        },
      });
      calls.length = 0;
      const refused = await member.post('/v2.0/ports', port('refused'));
      assert.equal(refused.status, 400);
      assert.equal(refused.body.NeutronError.type, 'InvalidInput');
      assert.equal(refused.body.NeutronError.message, 'Invalid input for operation: refused by the test driver.');
      // The later drivers' precommit and every postcommit never ran.
      assert.deepEqual(calls, ['recorder.precommit']);
      const seen = recorder.last('port', 'create');
      assert.ok(seen.resource === 'port');
      assert.deepEqual(seen.current.fixed_ips, [{ subnet_id: subnet, ip_address: '10.61.0.50' }]);

      assert.deepEqual((await member.get(`/v2.0/ports?network_id=${network}`)).body.ports, []);
      const usage = await api.admin.get(`/v2.0/quotas/${project}/details`);
      assert.equal(usage.body.quota.port.used, 0);
      // Within the quota of one, with the same address and MAC.
      const accepted = await member.post('/v2.0/ports', port('accepted'));
      assert.equal(accepted.status, 201);
      assert.equal(accepted.body.port.fixed_ips[0].ip_address, '10.61.0.50');
    });

    it('rolls back a network and its segment when a precommit throws', async () => {
      recorder.refuse = (c) => c.resource === 'network' && c.current.name === 'refused';
      const body = (name: string) => ({
        network: { name, 'provider:network_type': 'geneve', 'provider:segmentation_id': 4242 },
      });
      const refused = await api.admin.post('/v2.0/networks', body('refused'));
      assert.equal(refused.status, 400);
      assert.equal(refused.body.NeutronError.type, 'InvalidInput');
      assert.deepEqual((await api.admin.get('/v2.0/networks?name=refused')).body.networks, []);
      // The segmentation id was not kept: another network may take it.
      const again = await api.admin.post('/v2.0/networks', body('accepted'));
      assert.equal(again.status, 201);
      assert.equal(again.body.network['provider:segmentation_id'], 4242);
      assert.equal((await api.admin.delete(`/v2.0/networks/${again.body.network.id}`)).status, 204);
    });

    it('logs a postcommit failure without failing the request, and the next pass repairs it', async () => {
      const { network } = await networkWithSubnet('10.62.0.0/24');
      mirror.failNext = true;
      const created = await member.post('/v2.0/ports', { port: { network_id: network } });
      assert.equal(created.status, 201);
      const port = created.body.port;
      const failure = api
        .logs()
        .find(
          (line) => line.msg === 'driver postcommit failed' && line.driver === 'mirror' && line.resource === 'port',
        );
      assert.ok(failure, 'the failure is logged with the driver and the resource');
      assert.equal(mirror.ports.has(port.id), false);
      // The write stands: the port is there as the API answered it.
      assert.equal((await member.get(`/v2.0/ports/${port.id}`)).body.port.revision_number, port.revision_number);

      await mirror.repair();
      assert.equal(mirror.ports.get(port.id), port.revision_number);
    });

    it("gives a full pass every port, read a page at a time, with the API's values", async () => {
      const { network } = await networkWithSubnet('10.62.0.0/24');
      const ports = Array.from({ length: 7 }, (_, i) => ({ network_id: network, name: `paged-${i}` }));
      assert.equal((await member.post('/v2.0/ports', { ports })).status, 201);
      const listed: Record<string, unknown>[] = (await api.admin.get(`/v2.0/ports?network_id=${network}`)).body.ports;
      const everyPort = (await api.admin.get('/v2.0/ports?fields=id')).body.ports.map((p: { id: string }) => p.id);
      // Pages of one, pages that end exactly at the last port, pages across it, and one page.
      for (const pageSize of [1, 7, 3, 1000]) {
        const states = await api.server.services.ports.allStates(pageSize);
        assert.deepEqual(
          states.map((s) => s.id).sort(),
          [...everyPort].sort(),
          `every port once, pages of ${pageSize}`,
        );
        const mine = states.filter((s) => s.network_id === network);
        assert.equal(mine.length, 7);
        for (const state of mine)
          assertSameState(
            state,
            listed.find((p) => p.id === state.id)!,
          );
      }
      const snapshot = await mirror.reader().snapshot();
      assert.deepEqual(snapshot.ports.map((p) => p.id).sort(), [...everyPort].sort());
    });

    it('gives precommit the state the API returns: networks, subnets and ports', async () => {
      // As admin: policy hides the provider attributes from a member's answer, not from drivers.
      member = api.admin;
      const network = await member.post('/v2.0/networks', { network: { name: 'state' } });
      const networkId = network.body.network.id;
      assertSameState(recorder.last('network', 'create', networkId).current, network.body.network);
      const subnet = await member.post('/v2.0/subnets', {
        subnet: { network_id: networkId, ip_version: 4, cidr: '10.63.0.0/24', dns_nameservers: ['10.63.0.53'] },
      });
      assertSameState(recorder.last('subnet', 'create', subnet.body.subnet.id).current, subnet.body.subnet);
      const port = await member.post('/v2.0/ports', {
        port: { network_id: networkId, allowed_address_pairs: [{ ip_address: '10.63.0.200' }] },
      });
      const portId = port.body.port.id;
      assertSameState(recorder.last('port', 'create', portId).current, port.body.port);

      const updated = await member.put(`/v2.0/ports/${portId}`, { port: { name: 'renamed' } });
      const portUpdate = recorder.last('port', 'update', portId);
      assertSameState(portUpdate.current, updated.body.port);
      assertSameState(portUpdate.original!, port.body.port);
      const netUpdated = await member.put(`/v2.0/networks/${networkId}`, { network: { name: 'renamed' } });
      assertSameState(recorder.last('network', 'update', networkId).current, netUpdated.body.network);
      const subUpdated = await member.put(`/v2.0/subnets/${subnet.body.subnet.id}`, { subnet: { name: 'renamed' } });
      assertSameState(recorder.last('subnet', 'update', subnet.body.subnet.id).current, subUpdated.body.subnet);

      for (const [resource, path, key] of [
        ['port', `/v2.0/ports/${portId}`, 'port'],
        ['subnet', `/v2.0/subnets/${subnet.body.subnet.id}`, 'subnet'],
        ['network', `/v2.0/networks/${networkId}`, 'network'],
      ] as const) {
        const shown = (await member.get(path)).body[key];
        assert.equal((await member.delete(path)).status, 204);
        assertSameState(recorder.last(resource, 'delete', shown.id).current, shown);
      }
    });

    it('gives precommit the state the API returns: security groups and rules', async () => {
      const group = await member.post('/v2.0/security-groups', { security_group: { name: 'g' } });
      const groupId = group.body.security_group.id;
      const created = recorder.last('security_group', 'create', groupId);
      assertSameState(created.current, group.body.security_group);
      assert.ok(created.resource === 'security_group');
      const rulesById = new Map(
        (group.body.security_group.security_group_rules as { id: string }[]).map((r) => [r.id, r]),
      );
      assert.equal(created.current.rules.length, rulesById.size);
      for (const rule of created.current.rules) {
        const { protocol_number: _number, ...shown } = rule;
        assertSameState(shown, rulesById.get(rule.id) as Record<string, unknown>);
      }

      const rule = await member.post('/v2.0/security-group-rules', {
        security_group_rule: {
          security_group_id: groupId,
          direction: 'ingress',
          protocol: 'tcp',
          port_range_min: 22,
          port_range_max: 22,
        },
      });
      const ruleSeen = recorder.last('security_group_rule', 'create', rule.body.security_group_rule.id);
      assertSameState(ruleSeen.current, rule.body.security_group_rule);
      assert.ok(ruleSeen.resource === 'security_group_rule');
      assert.equal(ruleSeen.current.protocol_number, 6);
      assert.equal((await member.delete(`/v2.0/security-group-rules/${rule.body.security_group_rule.id}`)).status, 204);
      assertSameState(
        recorder.last('security_group_rule', 'delete', rule.body.security_group_rule.id).current,
        rule.body.security_group_rule,
      );

      const updated = await member.put(`/v2.0/security-groups/${groupId}`, { security_group: { name: 'renamed' } });
      assertSameState(recorder.last('security_group', 'update', groupId).current, updated.body.security_group);
      const shown = (await member.get(`/v2.0/security-groups/${groupId}`)).body.security_group;
      assert.equal((await member.delete(`/v2.0/security-groups/${groupId}`)).status, 204);
      assertSameState(recorder.last('security_group', 'delete', groupId).current, shown);
    });

    it('gives precommit the state the API returns: routers and floating IPs', async () => {
      const external = await api.admin.post('/v2.0/networks', { network: { name: 'ext', 'router:external': true } });
      const externalId = external.body.network.id;
      const extSubnet = await api.admin.post('/v2.0/subnets', {
        subnet: { network_id: externalId, ip_version: 4, cidr: '198.51.100.0/24' },
      });
      assert.equal(extSubnet.status, 201);
      const router = await member.post('/v2.0/routers', {
        router: { name: 'r', external_gateway_info: { network_id: externalId } },
      });
      assert.equal(router.status, 201);
      const routerId = router.body.router.id;
      const seen = recorder.last('router', 'create', routerId);
      assertSameState(seen.current, router.body.router);
      assert.ok(seen.resource === 'router');
      assert.ok(seen.current.gw_port_id);
      const updated = await member.put(`/v2.0/routers/${routerId}`, { router: { name: 'renamed' } });
      assertSameState(recorder.last('router', 'update', routerId).current, updated.body.router);

      const fip = await member.post('/v2.0/floatingips', { floatingip: { floating_network_id: externalId } });
      assert.equal(fip.status, 201);
      const fipId = fip.body.floatingip.id;
      assertSameState(recorder.last('floatingip', 'create', fipId).current, fip.body.floatingip);
      const fipUpdated = await member.put(`/v2.0/floatingips/${fipId}`, { floatingip: { description: 'd' } });
      assertSameState(recorder.last('floatingip', 'update', fipId).current, fipUpdated.body.floatingip);
      const fipShown = (await member.get(`/v2.0/floatingips/${fipId}`)).body.floatingip;
      assert.equal((await member.delete(`/v2.0/floatingips/${fipId}`)).status, 204);
      assertSameState(recorder.last('floatingip', 'delete', fipId).current, fipShown);

      const routerShown = (await member.get(`/v2.0/routers/${routerId}`)).body.router;
      assert.equal((await member.delete(`/v2.0/routers/${routerId}`)).status, 204);
      assertSameState(recorder.last('router', 'delete', routerId).current, routerShown);
    });
  });
}
