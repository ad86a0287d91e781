/**
 * The real Octavia's amphora load balancer on octonet, with real VRRP and real packets: Debian's
 * Octavia 11 (no-op amphora driver, real Nova compute driver, real allowed-address-pairs network
 * driver; test/fixtures/octavia-amphora.ts) builds an ACTIVE_STANDBY load balancer; the real Nova
 * (fake virt driver, one nova-compute per lab node) binds each amphora's `octavia-lb-vrrp-<amp>`
 * port to a lab node's chassis. What an amphora image would do, the lab does: each VRRP port is
 * plugged into a VM on the node Nova bound it to, and the VM runs keepalived with the essentials of
 * Octavia's template (src/lab/keepalived.ts: one vrrp_instance, the VIP as virtual_ipaddress,
 * unicast peers = the other amphorae's VRRP addresses, MASTER 100 / BACKUP 90, nopreempt) and a TCP
 * responder on the listener's port that answers with the amphora's name. From the outside
 * namespace, connections to the floating IP on the VIP show which amphora holds it.
 *
 * - the pair elects one master and the floating IP reaches it;
 * - `openstack loadbalancer failover` replaces both amphorae (new ports, the old ones deleted);
 *   the old VMs are removed as Nova deletes the old servers, the new ports plugged into new VMs,
 *   and the same floating IP reaches the new master, with the NAT row never rewritten;
 * - killing the master's keepalived (SIGKILL, link down: no goodbye advert) moves the floating IP's
 *   traffic to the backup, and the VIP port's `binding:host_id` follows.
 *
 * It runs with octonet's default `ovn.vip_failover`, what a user gets without a setting. Lab
 * `octaf`: 2 nodes (both gateway chassis) and the outside. Every step waits for the condition it
 * needs; nothing is timed.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Keepalived } from '../../src/lab/index.js';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { useKeystone, withToken, type KeystoneFixture, type TokenClient } from '../fixtures/keystone.js';
import { octonetNovaConfig, useNova } from '../fixtures/nova.js';
import { useOctavia } from '../fixtures/octavia.js';
import { lbMgmtNet } from '../fixtures/octavia-amphora.js';
import { check, createOutsideNetwork, created, notRoot, pollUntil, useLab } from '../lab/lab-fixture.js';
import type { Amphora } from './amphora-neutron.js';

const HOSTS = ['node1', 'node2'];
const LISTENER_PORT = 80;
/** Octavia's priorities: MASTER 100, BACKUP 90 (keepalived_vrrp.template's `priority`). */
const PRIORITY: Record<string, number> = { MASTER: 100, BACKUP: 90 };
/** A loaded machine runs Octavia, Nova and OVN on 2 cores: generous hang guards, not measurements. */
const STEP_DEADLINE_MS = 90_000;

/** An amphora as the lab runs it: its VM on the node Nova bound its VRRP port to. */
interface PluggedAmphora {
  readonly amphora: Amphora;
  readonly vm: string;
  readonly node: string;
  readonly responder: ChildProcess;
  keepalived?: Keepalived;
}

describe(
  'real Octavia on octonet: an amphora pair with keepalived in lab VMs survives failover',
  { skip: notRoot },
  () => {
    const { lab } = useLab({ name: 'octaf', nodes: HOSTS.length });
    const keystone = useKeystone();
    let novaUser: Awaited<ReturnType<KeystoneFixture['addServiceUser']>>;
    before(async () => {
      novaUser = await keystone.addServiceUser('nova', ['admin', 'service']);
    });
    const api = useApi('sqlite', {
      config: () => ({
        ...keystone.octonetConfig(),
        ovn: { nb_connection: lab().nb, sb_connection: lab().sb },
        nova: octonetNovaConfig(keystone.url, novaUser),
      }),
    });
    const nova = useNova(() => ({ keystone, neutronUrl: api.url, computeHosts: HOSTS, novaUser }));
    const admin = async (): Promise<TokenClient> =>
      withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin));
    const post = async (path: string, body: unknown): Promise<Json> => created(await admin(), `/v2.0/${path}`, body);

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
        topology: 'ACTIVE_STANDBY',
        antiAffinity: true,
      },
    }));

    const plugged = new Map<string, PluggedAmphora>();
    let lb: Json;
    let fip: Json;
    let vipSubnet: Json;
    let externalNetworkId: string;

    const explain = () =>
      `worker:\n${octavia
        .log('octavia-worker')
        .split('\n')
        .filter((l) => / (ERROR|WARNING) /.test(l))
        .slice(-20)
        .join('\n')}\nnova:\n${nova.problems().split('\n').slice(-10).join('\n')}`;

    /** The load balancer's current amphorae (Octavia's admin API: the CLI's list leaves the ports out). */
    const amphorae = async (): Promise<Amphora[]> => {
      const token = await keystone.issueToken(keystone.users.cloudAdmin);
      const response = await fetch(`${octavia.url}/v2/octavia/amphorae?loadbalancer_id=${lb.id}`, {
        headers: { 'x-auth-token': token },
      });
      assert.equal(response.status, 200);
      const all = ((await response.json()) as { amphorae: Amphora[] }).amphorae;
      return all.filter((a) => a.status === 'ALLOCATED');
    };
    const getPort = async (id: string): Promise<Json> => (await (await admin()).get(`/v2.0/ports/${id}`)).body.port;

    /**
     * What booting the amphora image would do: the VRRP port Nova bound goes into a VM on that node
     * (DHCP gives it the port's address and the router as its gateway), a responder answers on the
     * listener's port with the amphora's name. keepalived starts once every amphora is plugged.
     */
    const plug = async (amphora: Amphora): Promise<PluggedAmphora> => {
      const port = await getPort(amphora.vrrp_port_id);
      const node = port['binding:host_id'] as string;
      assert.ok(HOSTS.includes(node), `Nova bound ${port.name} to a lab node, not ${JSON.stringify(node)}`);
      const vm = `amp-${amphora.id.slice(0, 8)}`;
      await lab().createVm({ node, port: port.id, name: vm });
      const argv = lab().vmCommand(vm, ['socat', `TCP4-LISTEN:${LISTENER_PORT},fork,reuseaddr`, `SYSTEM:echo ${vm}`]);
      const responder = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore' });
      await pollUntil(
        async () =>
          (await lab().exec(lab().vmCommand(vm, ['ss', '-Hltn', `sport = :${LISTENER_PORT}`]))).stdout.trim() !== '',
        `${vm}'s responder listening`,
      );
      const entry = { amphora, vm, node, responder };
      plugged.set(amphora.id, entry);
      return entry;
    };

    /** keepalived as Octavia's template renders it for `entry`, its peers the other amphorae given. */
    const startVrrp = async (entry: PluggedAmphora, pair: readonly PluggedAmphora[]) => {
      entry.keepalived = await lab().startKeepalived(entry.vm, {
        vip: lb.vip_address,
        self: entry.amphora.vrrp_ip,
        peers: pair.filter((p) => p !== entry).map((p) => p.amphora.vrrp_ip),
        priority: PRIORITY[entry.amphora.role ?? 'BACKUP'] ?? 90,
        advertInt: 1,
      });
    };

    /** Nova deleted the old server: its keepalived and responder go with its VM. */
    const unplug = async (entry: PluggedAmphora) => {
      await entry.keepalived?.stop();
      entry.responder.kill();
      await lab().deleteVm(entry.vm);
      plugged.delete(entry.amphora.id);
    };

    /** The VIP on an interface that is up (a killed amphora keeps the address on its downed link). */
    const holdsVip = async (entry: PluggedAmphora) =>
      (
        await lab().exec(lab().vmCommand(entry.vm, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0', 'up']))
      ).stdout.includes(` ${lb.vip_address}/`);
    const master = (pair: readonly PluggedAmphora[]) =>
      pollUntil(
        async () => {
          const holding = [];
          for (const entry of pair) if (await holdsVip(entry)) holding.push(entry);
          return holding.length === 1 ? holding[0] : undefined;
        },
        `exactly one of ${pair.map((p) => p.vm).join(', ')} holding the VIP`,
        STEP_DEADLINE_MS,
      );

    /** One TCP connection from the outside to the floating IP: the name of the amphora that answered, or ''. */
    const connect = async (): Promise<string> => {
      const target = `TCP4:${fip.floating_ip_address}:${LISTENER_PORT},connect-timeout=3`;
      const r = await lab().exec(lab().outsideCommand(['socat', '-T', '3', '-', target]), {
        input: '',
        timeoutMs: 10_000,
      });
      return r.code === 0 ? r.stdout.trim() : '';
    };
    /** Waits until the outside's connections to the floating IP are answered by `entry`, then 5 in a row. */
    const floatingIpReaches = async (entry: PluggedAmphora) => {
      let last = '';
      await pollUntil(
        async () => (last = await connect()) === entry.vm,
        `the floating IP answered by ${entry.vm} (last answer: ${JSON.stringify(last)})`,
        STEP_DEADLINE_MS,
      );
      for (let i = 0; i < 5; i++) assert.equal(await connect(), entry.vm, 'every connection reaches the master');
    };

    const natRows = () =>
      lab().nbctl('--format=json', '--columns=logical_port,external_ip,logical_ip,external_mac,type', 'find', 'NAT');
    /** The VIP's logical switch port: `virtual` with the VRRP ports as parents, or a learned-MAC VIP. */
    const vipSwitchPort = async () => {
      const out = await lab().nbctl(
        '--format=json',
        '--columns=type,options,external_ids',
        'find',
        'Logical_Switch_Port',
        `name=${lb.vip_port_id}`,
      );
      const [row] = (
        JSON.parse(out) as { data: [string, [string, [string, string][]], [string, [string, string][]]][] }
      ).data;
      assert.ok(row, 'the VIP has its logical switch port');
      return { type: row[0], options: Object.fromEntries(row[1][1]), externalIds: Object.fromEntries(row[2][1]) };
    };
    /** octonet wrote the VIP so that whichever of `pair` holds the address gets its traffic. */
    const checkVipFollows = async (pair: readonly PluggedAmphora[]) => {
      const lsp = await vipSwitchPort();
      if (lsp.type === 'virtual') {
        assert.equal(lsp.options['virtual-ip'], lb.vip_address);
        assert.deepEqual(
          String(lsp.options['virtual-parents']).split(',').sort(),
          pair.map((p) => p.amphora.vrrp_port_id).sort(),
          'the virtual port’s parents are exactly the current VRRP ports',
        );
      } else {
        assert.equal(lsp.type, '');
        assert.equal(lsp.externalIds['octonet:learned-vip'], lb.vip_address, 'a learned-MAC VIP');
      }
    };

    before(async () => {
      await keystone.setEndpoint('network', api.url);
      const { network: external } = await createOutsideNetwork(await admin());
      const net = (await post('networks', { network: { name: 'vip-net' } })).network;
      vipSubnet = (await post('subnets', { subnet: { network_id: net.id, cidr: '10.7.0.0/24', ip_version: 4 } }))
        .subnet;
      const router = (
        await post('routers', { router: { name: 'vip-router', external_gateway_info: { network_id: external.id } } })
      ).router;
      const added = await (
        await admin()
      ).put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: vipSubnet.id });
      assert.equal(added.status, 200, added.text);
      externalNetworkId = external.id as string;
    });

    after(async () => {
      for (const entry of plugged.values()) {
        await entry.keepalived?.stop();
        entry.responder.kill();
      }
    });

    it('ACTIVE_STANDBY: the amphorae’s VRRP ports in lab VMs elect one keepalived master; the floating IP on the VIP reaches it', async (t) => {
      const r = await octavia.cli.run([
        'loadbalancer',
        'create',
        '--provider',
        'amphora',
        '--vip-subnet-id',
        vipSubnet.id,
        '--name',
        'lb-vrrp',
        '--wait',
        '-f',
        'json',
      ]);
      assert.equal(r.code, 0, `${r.stderr}\n${explain()}`);
      lb = JSON.parse(r.stdout) as Json;
      assert.equal(lb.provisioning_status, 'ACTIVE', explain());
      // The listener opens its port in lb-<id>, the security group of the VIP and VRRP ports.
      await octavia.cli.ok([
        'loadbalancer',
        'listener',
        'create',
        '--protocol',
        'TCP',
        '--protocol-port',
        String(LISTENER_PORT),
        '--name',
        'l-vrrp',
        '--wait',
        lb.id,
      ]);
      fip = (
        await post('floatingips', {
          floatingip: { floating_network_id: externalNetworkId, port_id: lb.vip_port_id },
        })
      ).floatingip;

      const current = await amphorae();
      assert.deepEqual(current.map((a) => a.role).sort(), ['BACKUP', 'MASTER']);
      const pair: PluggedAmphora[] = [];
      for (const amphora of current) pair.push(await plug(amphora));
      for (const entry of pair) await startVrrp(entry, pair);
      const first = await master(pair);
      await floatingIpReaches(first);
      await checkVipFollows(pair);
      t.diagnostic(`VIP ${lb.vip_address as string}: ${(await vipSwitchPort()).type || 'learned-MAC'} port`);
      for (const p of pair)
        t.diagnostic(`${p.vm} (${p.amphora.role ?? '?'}) on ${p.node}${p === first ? ', master' : ''}`);
    });

    it('loadbalancer failover: new amphorae in new VMs answer on the same floating IP; the NAT row is never rewritten', async (t) => {
      const old = [...plugged.values()];
      const nat = await natRows();
      const r = await octavia.cli.run(['loadbalancer', 'failover', '--wait', lb.id]);
      assert.equal(r.code, 0, `${r.stderr}\n${explain()}`);
      const status = await octavia.cli.json<Json>(['loadbalancer', 'show', lb.id]);
      assert.equal(status.provisioning_status, 'ACTIVE', explain());
      assert.equal(status.vip_port_id, lb.vip_port_id, 'the VIP port stays');

      const current = await amphorae();
      assert.equal(current.length, 2);
      for (const amphora of current) assert.ok(!plugged.has(amphora.id), 'failover replaced every amphora');
      // Nova deleted the old servers (their ports are gone from octonet): their VMs go too.
      for (const entry of old) {
        assert.equal((await (await admin()).get(`/v2.0/ports/${entry.amphora.vrrp_port_id}`)).status, 404);
        await unplug(entry);
      }
      const pair: PluggedAmphora[] = [];
      for (const amphora of current) pair.push(await plug(amphora));
      for (const entry of pair) await startVrrp(entry, pair);
      const now = await master(pair);
      await floatingIpReaches(now);
      await checkVipFollows(pair);
      for (const p of pair)
        t.diagnostic(`${p.vm} (${p.amphora.role ?? '?'}) on ${p.node}${p === now ? ', master' : ''}`);

      assert.equal(await natRows(), nat, 'the floating IP’s NAT row is the same row');
      const after = (await (await admin()).get(`/v2.0/floatingips/${fip.id}`)).body.floatingip;
      assert.equal(after.floating_ip_address, fip.floating_ip_address);
      assert.equal(after.port_id, lb.vip_port_id);
    });

    it('killing the master’s keepalived moves the floating IP to the backup, and the VIP port’s host follows', async () => {
      const pair = [...plugged.values()];
      const first = await master(pair);
      const second = pair.find((p) => p !== first)!;
      await pollUntil(
        async () => {
          const dump = await second.keepalived!.dump();
          return /State = BACKUP/.test(dump) && dump.includes(`Master router = ${first.amphora.vrrp_ip}\n`);
        },
        `${second.vm} in BACKUP, hearing ${first.vm}`,
        STEP_DEADLINE_MS,
      );
      await pollUntil(
        async () => (await getPort(lb.vip_port_id))['binding:host_id'] === first.node,
        `the VIP port's binding:host_id on ${first.node}`,
        STEP_DEADLINE_MS,
      );
      const nat = await natRows();

      // An amphora's death: keepalived SIGKILLed (no priority-0 advert), its link down.
      await first.keepalived!.kill();
      await check(lab(), lab().vmCommand(first.vm, ['ip', 'link', 'set', 'eth0', 'down']));

      await floatingIpReaches(second);
      assert.equal(await holdsVip(second), true, `${second.vm} took the VIP`);
      assert.equal(await natRows(), nat, 'the NAT row never changes');
      await pollUntil(
        async () => (await getPort(lb.vip_port_id))['binding:host_id'] === second.node,
        `the VIP port's binding:host_id following to ${second.node}`,
        STEP_DEADLINE_MS,
      );
      if (first.node !== second.node) {
        const moved = `load balancer VIP ${lb.vip_address as string} is now held by port ${second.amphora.vrrp_port_id} on ${second.node}`;
        assert.ok(
          api.logs().some((line) => line.msg === moved),
          `octonet logs the move: ${moved}`,
        );
      }
    });
  },
);
