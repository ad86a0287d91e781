/**
 * Debian's real Octavia 11 with its amphora provider on octonet, with the real Nova beside it: the
 * no-op *amphora* driver (no amphora agent exists here), the real allowed-address-pairs network
 * driver and the real Nova compute driver (Nova's fake virt driver: nothing boots, but Nova creates
 * and binds the amphorae's ports on octonet as in production). octavia-api casts to octavia-worker
 * over the Nova fixture's RabbitMQ. Two chassis are registered in the SB (no data plane runs), so
 * Nova's hosts bind as `ovs`.
 *
 * For SINGLE and ACTIVE_STANDBY (an Octavia flavor): load balancer create → ACTIVE, a listener,
 * pool and member, `loadbalancer failover`, delete with cascade; after each, octonet's API shows
 * what Octavia expects (amphora-neutron.ts), a floating IP on the VIP keeps its address and port
 * across the failover, and nothing is left after the delete.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { useKeystone, withToken, type KeystoneFixture, type TokenClient } from '../fixtures/keystone.js';
import { octonetNovaConfig, useNova } from '../fixtures/nova.js';
import { useOctavia } from '../fixtures/octavia.js';
import { activeStandbyFlavor, lbMgmtNet } from '../fixtures/octavia-amphora.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import { checkNeutronSide, checkNothingLeft, checkVirtualVip, type Amphora, type Seen } from './amphora-neutron.js';

const HOSTS = ['node1', 'node2'];

describe('real Octavia on octonet: the amphora provider with the real Nova', () => {
  const ovn = useOvnCentral();
  const keystone = useKeystone();
  let novaUser: Awaited<ReturnType<KeystoneFixture['addServiceUser']>>;
  before(async () => {
    HOSTS.forEach((host, i) => ovn.addChassis(host, `192.0.2.${11 + i}`));
    novaUser = await keystone.addServiceUser('nova', ['admin', 'service']);
  });
  const api = useApi('postgres', {
    config: () => ({
      ...keystone.octonetConfig(),
      // checkVirtualVip reads ML2/OVN's virtual port; amphora-failover.test.ts runs the default.
      ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb, vip_failover: 'virtual-port' },
      nova: octonetNovaConfig(keystone.url, novaUser),
    }),
  });
  const nova = useNova(() => ({ keystone, neutronUrl: api.url, computeHosts: HOSTS, novaUser }));
  const admin = async (): Promise<TokenClient> =>
    withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin));
  const post = async (path: string, body: Json): Promise<Json> => {
    const response = await (await admin()).post(`/v2.0/${path}`, body);
    assert.equal(response.status, 201, `POST ${path}: ${response.text}`);
    return response.body;
  };

  // lb-mgmt-net and the amphorae's security group, in the service project, as an operator makes
  // them before Octavia starts (its config names them).
  const mgmt = { networkId: '', secGroupId: '' };
  before(async () => {
    Object.assign(mgmt, await lbMgmtNet(post, keystone.projects.service.id));
  });
  const octavia = useOctavia(() => ({
    keystone,
    amphora: {
      transportUrl: nova.transportUrl,
      flavorId: nova.flavorId,
      bootNetworkId: mgmt.networkId,
      secGroupIds: [mgmt.secGroupId],
    },
  }));

  /** Octavia's admin API (the amphora fields the CLI's list leaves out). */
  const amphoraeOf = async (lbId: string): Promise<Amphora[]> => {
    const token = await keystone.issueToken(keystone.users.cloudAdmin);
    const response = await fetch(`${octavia.url}/v2/octavia/amphorae?loadbalancer_id=${lbId}`, {
      headers: { 'x-auth-token': token },
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { amphorae: Amphora[] }).amphorae;
  };
  const explain = () =>
    `worker:\n${octavia
      .log('octavia-worker')
      .split('\n')
      .filter((l) => / (ERROR|WARNING) /.test(l))
      .slice(-30)
      .join('\n')}\nnova:\n${nova.problems().split('\n').slice(-15).join('\n')}`;

  let vipSubnet: Json;
  let externalNet: Json;
  before(async () => {
    await keystone.setEndpoint('network', api.url);
    const cli = octavia.cli;
    externalNet = await cli.json<Json>(['network', 'create', '--external', 'ext-net']);
    await cli.json([
      'subnet',
      'create',
      '--network',
      externalNet.id,
      '--subnet-range',
      '203.0.113.0/24',
      '--no-dhcp',
      'ext-sub',
    ]);
    const net = await cli.json<Json>(['network', 'create', 'vip-net']);
    vipSubnet = await cli.json<Json>([
      'subnet',
      'create',
      '--network',
      net.id,
      '--subnet-range',
      '10.7.0.0/24',
      'vip-sub',
    ]);
    const router = await cli.json<Json>(['router', 'create', 'vip-router']);
    await cli.ok(['router', 'set', '--external-gateway', externalNet.id, router.id]);
    await cli.ok(['router', 'add', 'subnet', router.id, vipSubnet.id]);
  });

  /** One load balancer through its life: create, listener/pool/member, failover, delete. */
  const lifecycle = (topology: 'SINGLE' | 'ACTIVE_STANDBY') => {
    const activeStandby = topology === 'ACTIVE_STANDBY';
    let lb: Json;
    let fip: Json;
    const seen: Seen[] = [];
    const check = async (listenerPorts: number[]): Promise<Seen> => {
      const amphorae = await amphoraeOf(lb.id);
      const s = await checkNeutronSide(await admin(), {
        lb,
        amphorae,
        mgmt,
        hosts: HOSTS,
        listenerPorts,
        activeStandby,
      });
      seen.push(s);
      await checkVirtualVip(ovn, lb, s);
      return s;
    };

    it(`${topology}: load balancer create goes ACTIVE; the VIP port, the amphorae's ports and lb-<id> are as Octavia expects`, async () => {
      const flavorArgs: string[] = [];
      if (activeStandby) {
        await activeStandbyFlavor(octavia.cli, 'ha');
        flavorArgs.push('--flavor', 'ha');
      }
      const created = await octavia.cli.run([
        'loadbalancer',
        'create',
        '--provider',
        'amphora',
        '--vip-subnet-id',
        vipSubnet.id,
        '--name',
        `lb-${topology}`,
        ...flavorArgs,
        '--wait',
        '-f',
        'json',
      ]);
      assert.equal(created.code, 0, `${created.stderr}\n${explain()}`);
      lb = JSON.parse(created.stdout) as Json;
      assert.equal(lb.provisioning_status, 'ACTIVE', `${JSON.stringify(lb)}\n${explain()}`);
      assert.equal(lb.topology ?? topology, topology);
      await check([]);
      fip = (
        await post('floatingips', { floatingip: { floating_network_id: externalNet.id, port_id: lb.vip_port_id } })
      ).floatingip;
      assert.equal(fip.fixed_ip_address, lb.vip_address);
    });

    it(`${topology}: a listener, pool and member open the listener's port in lb-<id>`, async () => {
      const cli = octavia.cli;
      const name = `l-${topology}`;
      await cli.ok([
        'loadbalancer',
        'listener',
        'create',
        '--protocol',
        'TCP',
        '--protocol-port',
        '80',
        '--name',
        name,
        '--wait',
        lb.id,
      ]);
      await cli.ok([
        'loadbalancer',
        'pool',
        'create',
        '--protocol',
        'TCP',
        '--lb-algorithm',
        'ROUND_ROBIN',
        '--listener',
        name,
        '--name',
        `p-${topology}`,
        '--wait',
      ]);
      await cli.ok([
        'loadbalancer',
        'member',
        'create',
        '--address',
        '10.7.0.50',
        '--subnet-id',
        vipSubnet.id,
        '--protocol-port',
        '8080',
        '--wait',
        `p-${topology}`,
      ]);
      const status = await cli.json<Json>(['loadbalancer', 'show', lb.id]);
      assert.equal(status.provisioning_status, 'ACTIVE', explain());
      await check([80]);
    });

    it(`${topology}: failover replaces every amphora; the VIP port and its floating IP stay`, async () => {
      const before = await amphoraeOf(lb.id);
      const r = await octavia.cli.run(['loadbalancer', 'failover', '--wait', lb.id]);
      assert.equal(r.code, 0, `${r.stderr}\n${explain()}`);
      const status = await octavia.cli.json<Json>(['loadbalancer', 'show', lb.id]);
      assert.equal(status.provisioning_status, 'ACTIVE', explain());
      assert.equal(status.vip_port_id, lb.vip_port_id);
      assert.equal(status.vip_address, lb.vip_address);
      const after = await check([80]);
      const newIds = (await amphoraeOf(lb.id)).filter((a) => a.status === 'ALLOCATED').map((a) => a.compute_id);
      for (const old of before) assert.ok(!newIds.includes(old.compute_id), `amphora ${old.id} was replaced`);
      const oldPorts = seen.at(-2)!;
      for (const port of [...oldPorts.vrrpPorts, ...oldPorts.mgmtPorts]) {
        const gone = await (await admin()).get(`/v2.0/ports/${port.id}`);
        assert.equal(gone.status, 404, `the old amphora's port ${port.name} is deleted`);
      }
      const now = (await (await admin()).get(`/v2.0/floatingips/${fip.id}`)).body.floatingip;
      assert.equal(now.floating_ip_address, fip.floating_ip_address);
      assert.equal(now.port_id, lb.vip_port_id);
      assert.equal(now.fixed_ip_address, lb.vip_address);
      assert.equal(after.vipPort.id, lb.vip_port_id);
    });

    it(`${topology}: delete with cascade leaves no port or security group; the floating IP is disassociated`, async () => {
      const r = await octavia.cli.run(['loadbalancer', 'delete', '--cascade', '--wait', lb.id]);
      assert.equal(r.code, 0, `${r.stderr}\n${explain()}`);
      await checkNothingLeft(await admin(), seen, fip.id);
      const gone = new Set(seen.flatMap((s) => [s.vipPort, ...s.vrrpPorts, ...s.mgmtPorts].map((p) => p.id as string)));
      await eventually(() =>
        assert.deepEqual(
          ovn.nbRows('Logical_Switch_Port').filter((r) => gone.has(r.name as string)),
          [],
          'no logical switch port of the load balancer is left',
        ),
      );
      const servers = await nova.call('GET', '/servers?all_tenants=1');
      assert.deepEqual(servers.body.servers, [], 'Nova has no amphora left');
      await (await admin()).delete(`/v2.0/floatingips/${fip.id}`);
    });
  };

  lifecycle('SINGLE');
  lifecycle('ACTIVE_STANDBY');

  it('octonet answered every call Octavia and Nova made without a server error; the refusals are listed', (t) => {
    const callers = new Map([
      [octavia.serviceUser.id, 'octavia'],
      [novaUser.id, 'nova'],
    ]);
    const calls = api.logs().filter((line) => line.msg === 'request' && callers.has(String(line.user)));
    assert.ok(calls.length > 0, 'Octavia and Nova called octonet');
    const failed = calls.filter((line) => Number(line.status) >= 500);
    assert.deepEqual(failed, [], 'no 5xx');
    const refused = new Map<string, number>();
    for (const line of calls.filter((l) => Number(l.status) >= 400)) {
      const key = `${callers.get(String(line.user))} ${String(line.method)} ${String(line.url).replace(/[0-9a-f-]{36}/g, '{id}')} → ${String(line.status)}`;
      refused.set(key, (refused.get(key) ?? 0) + 1);
    }
    for (const [key, n] of refused) t.diagnostic(`${n} × ${key}`);
    // A 404 on a DELETE: who had deleted that resource before (Neutron answers such a repeat with 404 too).
    for (const [i, line] of calls.entries()) {
      if (line.method !== 'DELETE' || line.status !== 404) continue;
      const first = calls.slice(0, i).find((l) => l.method === 'DELETE' && l.url === line.url && l.status === 204);
      const by = first ? callers.get(String(first.user)) : 'nobody it called as';
      t.diagnostic(`${String(line.url)}: 404 to ${callers.get(String(line.user))}, deleted before by ${by}`);
    }
    // The worker's distinct failures, less "not ACTIVE yet" (ComputeWait's retry loop, logged as an ERROR).
    const failures = new Set(
      octavia
        .log('octavia-worker')
        .split('\n')
        .filter((l) => / ERROR .*(Exception|Error): /.test(l) && !l.includes('ComputeWaitTimeoutException'))
        .map((l) => l.replace(/^.* ERROR /, '')),
    );
    for (const line of failures) t.diagnostic(`worker: ${line.slice(0, 300)}`);
  });
});
