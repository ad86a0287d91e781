/**
 * A floating IP on a load balancer's VIP survives amphora failover, with real VRRP: two "amphorae"
 * on two nodes run Debian's keepalived as Octavia configures it (unicast peers, priorities 100/90,
 * `nopreempt`, 1 s adverts); the VIP port is unbound and listed in both amphora ports' allowed
 * address pairs; an outside client probes the floating IP 200 times a second. Killing the master
 * (SIGKILL, no goodbye advert, link down) moves the traffic to the backup with no API call and no
 * NAT change; the VIP port's binding:host_id follows, one log line says so and the topology feed
 * shows the new holder. Then the dead amphora is replaced the way Octavia's failover flow does it
 * (a new port with the VIP in its pairs, the old one deleted, the survivor's keepalived reloaded
 * with its new peer) and the new pair fails over again. All of it in both `ovn.vip_failover` modes:
 * the VIP as an OVN virtual port (ML2/OVN's way) and as a port whose MAC routers learn.
 *
 * Lab: 3 nodes; amphorae on node1 and node2 (the replacement on node1 again), the gateway on node3.
 * Nothing here waits for a fixed time: every step waits for the condition it needs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Keepalived, Lab, VrrpOptions } from '../../src/lab/index.js';
import { Prober } from '../../bench/routers/prober.js';
import { useApi } from '../fixtures/api.js';
import { DEADLINE_MS, check, createOutsideNetwork, created, notRoot, pollUntil, useLab } from './lab-fixture.js';
import type { Json } from '../fixtures/json.js';

const VIP = '10.9.0.10';
const AMPHORA_ADDRESS: Record<string, string> = { amphora1: '10.9.0.21', amphora2: '10.9.0.22', amphora3: '10.9.0.23' };
/** Octavia: the MASTER role's priority is 100, the BACKUP's 90; a replacement takes the dead one's. */
const PRIORITY: Record<string, number> = { amphora1: 100, amphora2: 90, amphora3: 100 };

/** The VIP's logical port: what each `ovn.vip_failover` mode writes. */
async function vipSwitchPort(lab: Lab, portId: string) {
  const columns = '--columns=type,addresses,options,external_ids';
  const [row] = JSON.parse(
    await lab.nbctl('--format=json', columns, 'find', 'Logical_Switch_Port', `name=${portId}`),
  ).data;
  return {
    type: row[0] as string,
    addresses: row[1] as unknown,
    options: Object.fromEntries(row[2][1]) as Record<string, string>,
    externalIds: Object.fromEntries(row[3][1]) as Record<string, string>,
  };
}

for (const mode of ['virtual-port', 'learned-mac'] as const) {
  describe(
    `octonet on the lab: a floating IP on a VIP survives keepalived failover (vip_failover ${mode})`,
    { skip: notRoot },
    () => {
      const { lab } = useLab({
        name: mode === 'virtual-port' ? 'oct-fail-vp' : 'oct-fail-lm',
        nodes: 3,
        gateways: ['node3'],
      });
      const api = useApi('sqlite', {
        config: () => ({ ovn: { nb_connection: lab().nb, sb_connection: lab().sb, vip_failover: mode } }),
      });
      const vm = (name: string) => lab().vmCommand(name, []);
      const keepalived: Record<string, Keepalived> = {};
      let network: Json;
      let group: Json;
      let vip: Json;
      let fip: Json;
      let prober: Prober | undefined;
      const amphorae: Record<string, { port: Json; node: string }> = {};

      const post = (path: string, body: unknown) => created(api.admin, path, body);
      const natRows = () =>
        lab().nbctl('--format=json', '--columns=logical_port,external_ip,logical_ip,external_mac', 'find', 'NAT');
      const vipPort = async () => (await api.admin.get(`/v2.0/ports/${vip.id}`)).body.port;
      /** The VIP on an interface that is up (a killed amphora keeps the address on its downed link). */
      const holdsVip = async (name: string) =>
        (await lab().exec([...vm(name), 'ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0', 'up'])).stdout.includes(
          ` ${VIP}/`,
        );
      const vrrp = (name: string, peers: string[]): VrrpOptions => ({
        vip: VIP,
        self: AMPHORA_ADDRESS[name]!,
        peers: peers.map((peer) => AMPHORA_ADDRESS[peer]!),
        priority: PRIORITY[name]!,
        advertInt: 1,
      });

      /** An amphora as Nova and Octavia make one: a port with the VIP in its pairs, a VM on it. */
      const bootAmphora = async (name: string, node: string) => {
        const port = (
          await post('/v2.0/ports', {
            port: {
              network_id: network.id,
              name: `octavia-lb-vrrp-${name}`,
              device_owner: 'compute:nova',
              'binding:host_id': node,
              fixed_ips: [{ ip_address: AMPHORA_ADDRESS[name] }],
              security_groups: [group.id],
              allowed_address_pairs: [{ ip_address: VIP }],
            },
          })
        ).port;
        await lab().createVm({ node, port: port.id, name });
        amphorae[name] = { port, node };
      };

      /** The one amphora holding the VIP, once exactly one does. */
      const master = (names: string[]) =>
        pollUntil(
          async () => {
            const holding = [];
            for (const name of names) if (await holdsVip(name)) holding.push(name);
            return holding.length === 1 ? holding[0] : undefined;
          },
          `exactly one of ${names.join(', ')} holding the VIP`,
        );

      /**
       * keepalived's state as its data dump (SIGUSR1) says it: a BACKUP that names the master's address
       * has heard the master's adverts, so it will not take the VIP on its own.
       */
      const backupHearsMaster = (name: string, masterAddress: string) =>
        pollUntil(async () => {
          const dump = await keepalived[name]!.dump();
          return (
            /State = BACKUP/.test(dump) &&
            new RegExp(`Master router = ${masterAddress.replace(/\./g, '\\.')}\\b`).test(dump)
          );
        }, `${name} in BACKUP, hearing ${masterAddress}`);

      /** The master dies as an amphora dies: keepalived SIGKILLed (no goodbye advert), its link down. */
      const killAmphora = async (name: string) => {
        await keepalived[name]!.kill();
        await check(lab(), [...vm(name), 'ip', 'link', 'set', 'eth0', 'down']);
      };

      /** Replies to echo requests sent after `since`, without a gap over 100 ms, for a second. */
      const probeResumes = (since: number) => prober!.waitSteady(1000, 100, DEADLINE_MS, since);

      before(async () => {
        const { network: external } = await createOutsideNetwork(api.admin);
        network = (await post('/v2.0/networks', { network: { name: 'lb-vip-net' } })).network;
        const subnet = (
          await post('/v2.0/subnets', { subnet: { network_id: network.id, cidr: '10.9.0.0/24', ip_version: 4 } })
        ).subnet;
        const router = (
          await post('/v2.0/routers', {
            router: { name: 'lb-router', external_gateway_info: { network_id: external.id } },
          })
        ).router;
        await api.admin.put(`/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
        // The rules Octavia's amphora group has for this: the probe (ICMP) and VRRP (IP protocol 112)
        // between the amphorae.
        group = (await post('/v2.0/security-groups', { security_group: { name: 'lb-amphorae' } })).security_group;
        for (const rule of [{ protocol: 'icmp' }, { protocol: '112', remote_group_id: group.id }]) {
          await post('/v2.0/security-group-rules', {
            security_group_rule: { security_group_id: group.id, direction: 'ingress', ethertype: 'IPv4', ...rule },
          });
        }
        vip = (
          await post('/v2.0/ports', {
            port: {
              network_id: network.id,
              name: 'octavia-lb-vip',
              device_owner: 'Octavia',
              fixed_ips: [{ ip_address: VIP }],
            },
          })
        ).port;
        await bootAmphora('amphora1', 'node1');
        await bootAmphora('amphora2', 'node2');
        fip = (await post('/v2.0/floatingips', { floatingip: { floating_network_id: external.id, port_id: vip.id } }))
          .floatingip;
        keepalived.amphora1 = await lab().startKeepalived('amphora1', vrrp('amphora1', ['amphora2']));
        keepalived.amphora2 = await lab().startKeepalived('amphora2', vrrp('amphora2', ['amphora1']));
        prober = new Prober(lab().outsideCommand([]), fip.floating_ip_address);
      });

      after(async () => {
        await prober?.stop();
        for (const daemon of Object.values(keepalived)) await daemon.stop();
      });

      it('the first master holds the VIP: the floating IP answers, the VIP port is bound to its node and ACTIVE', async () => {
        const first = await master(['amphora1', 'amphora2']);
        await prober!.firstReplyAfter(0, DEADLINE_MS, 'a reply through the floating IP');
        const port = await pollUntil(async () => {
          const p = await vipPort();
          return p['binding:host_id'] === amphorae[first]!.node && p.status === 'ACTIVE' ? p : undefined;
        }, `the VIP port bound to ${amphorae[first]!.node}`);
        assert.equal(port['binding:vif_type'], 'unbound', 'a VIP is never really bound (ML2/OVN)');
        const lsp = await vipSwitchPort(lab(), vip.id);
        if (mode === 'virtual-port') {
          assert.equal(lsp.type, 'virtual');
          assert.equal(lsp.options['requested-chassis'], undefined, 'a virtual port is bound where its parent is');
        } else {
          assert.equal(lsp.type, '');
          assert.deepEqual(lsp.addresses, ['set', []], 'no static addresses: routers learn the holder’s MAC');
          assert.equal(lsp.externalIds['octonet:learned-vip'], VIP);
        }
      });

      it('killing the master moves the floating IP’s traffic to the backup: no API call, NAT unchanged, host follows', async () => {
        const first = await master(['amphora1', 'amphora2']);
        const second = first === 'amphora1' ? 'amphora2' : 'amphora1';
        await backupHearsMaster(second, AMPHORA_ADDRESS[first]!);
        await prober!.waitSteady(1000, 100, DEADLINE_MS);
        const nat = await natRows();
        const revision = (await vipPort()).revision_number;

        const killedAt = Date.now();
        await killAmphora(first);
        await probeResumes(killedAt);

        assert.equal(await holdsVip(second), true, `${second} took the VIP`);
        assert.equal(await natRows(), nat, 'the NAT row never changes');
        const port = await pollUntil(async () => {
          const p = await vipPort();
          return p['binding:host_id'] === amphorae[second]!.node ? p : undefined;
        }, `binding:host_id following the VIP to ${amphorae[second]!.node}`);
        assert.ok(port.revision_number > revision, 'the move is a port update (revision bumped)');
        assert.equal((await api.admin.get(`/v2.0/floatingips/${fip.id}`)).body.floatingip.port_id, vip.id);

        // One log line per move, naming the amphora and its node.
        const moved = `load balancer VIP ${VIP} is now held by port ${amphorae[second]!.port.id} on ${amphorae[second]!.node}`;
        assert.ok(
          api.logs().some((line) => line.msg === moved && line.from === amphorae[first]!.node),
          `the log says: ${moved}`,
        );

        // The topology feed says where the VIP lives now: which amphora, on which node.
        const feed = (await api.admin.get('/topology.json')).body;
        const entry = feed.load_balancer_vips.find((v: Json) => v.port_id === vip.id);
        assert.deepEqual(entry.held_by, {
          port_id: amphorae[second]!.port.id,
          name: amphorae[second]!.port.name,
          host: amphorae[second]!.node,
        });
        assert.equal(entry.host, amphorae[second]!.node);
        assert.deepEqual(entry.floating_ips, [fip.floating_ip_address]);
        assert.deepEqual(
          entry.amphorae.map((a: Json) => a.port_id).sort(),
          [amphorae.amphora1!.port.id, amphorae.amphora2!.port.id].sort(),
        );
        // Another project sees none of it, and nobody but admins sees hosts.
        const other = await api.as({ project: 'someone-else' }).get('/topology.json');
        assert.equal(other.status, 200);
        assert.deepEqual(other.body.load_balancer_vips, []);
      });

      it('after Octavia replaces the dead amphora, the new pair fails over again', async () => {
        const survivor = await master(['amphora1', 'amphora2']);
        const dead = survivor === 'amphora1' ? 'amphora2' : 'amphora1';
        // Octavia's failover flow: a new amphora with the VIP in its pairs first, then the old one goes.
        await bootAmphora('amphora3', amphorae[dead]!.node);
        await lab().deleteVm(dead);
        delete keepalived[dead];
        assert.equal((await api.admin.delete(`/v2.0/ports/${amphorae[dead]!.port.id}`)).status, 204);
        if (mode === 'virtual-port') {
          assert.deepEqual(
            (await vipSwitchPort(lab(), vip.id)).options['virtual-parents']!.split(',').sort(),
            [amphorae[survivor]!.port.id, amphorae.amphora3!.port.id].sort(),
            'the parents follow the replacement',
          );
        }
        // The survivor learns its new peer by a reload (it stays MASTER); the newcomer starts as BACKUP.
        await keepalived[survivor]!.reload(vrrp(survivor, ['amphora3']));
        keepalived.amphora3 = await lab().startKeepalived('amphora3', vrrp('amphora3', [survivor]));
        await backupHearsMaster('amphora3', AMPHORA_ADDRESS[survivor]!);
        assert.equal(await master([survivor, 'amphora3']), survivor, 'nopreempt: the survivor stays master');
        await prober!.waitSteady(1000, 100, DEADLINE_MS);
        const nat = await natRows();

        const killedAt = Date.now();
        await killAmphora(survivor);
        await probeResumes(killedAt);

        assert.equal(await holdsVip('amphora3'), true);
        assert.equal(await natRows(), nat, 'the NAT row never changes');
        await pollUntil(
          async () => (await vipPort())['binding:host_id'] === amphorae.amphora3!.node,
          `binding:host_id following the VIP to amphora3 on ${amphorae.amphora3!.node}`,
        );
      });
    },
  );
}
