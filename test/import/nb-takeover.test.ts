/**
 * Taking over ML2/OVN's NB (issue 17 item 5): a real Neutron Zed (fixtures/neutron-private.ts) runs
 * on the NB and SB of a lab, whose nodes are real chassis, and builds a cloud through its API: a
 * tenant network behind a router with an external gateway, a VM port bound to node1 and plugged
 * into a lab VM, a floating IP on it, a security group with rules, a VLAN provider network and a
 * port with extra DHCP options. A probe (ping and TCP connections from the outside host to the
 * floating IP) runs while Neutron stops, `octonet import` copies its database and `octonet serve`
 * starts on that database and the same NB. Asserted: the first full pass changes the NB exactly
 * as docs/moving-from-neutron.md lists, a second full pass changes nothing, and the probe lost
 * nothing across the switch.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importNeutron } from '../../src/import/import.js';
import { openStore } from '../../src/store/database.js';
import { createBackendDatabase, type TestDatabase } from '../fixtures/databases.js';
import { neutronAvailable, startPrivateNeutron, type PrivateNeutron } from '../fixtures/neutron-private.js';
import { startServeProcess, type ServeProcess } from '../fixtures/serve-process.js';
import { check, notRoot, OUTSIDE_ADDRESS, pollUntil, useLab } from '../lab/lab-fixture.js';
import { dumpNb, nbChangeExamples, nbChanges, type NbDump } from './nb-takeover-diff.js';

/**
 * What octonet's first full pass changes in the NB that ML2/OVN (Zed) wrote: the documented list
 * (docs/moving-from-neutron.md, "Taking over ML2/OVN's NB"), each with its reason.
 */
const KNOWN: { change: string; reason: string; optional?: true }[] = [
  {
    change: 'NB_Global.external_ids:octonet:deployment_id',
    reason: 'the NB owner mark (issue 18): octonet refuses an NB another deployment marked',
  },
  {
    change: 'Logical_Switch.external_ids:neutron:revision_number',
    optional: true,
    reason:
      "revision stamps: Neutron's revision number moves without an NB write (a subnet added, a port's status); octonet stamps the database's",
  },
  {
    change: 'Logical_Switch.external_ids:neutron:provnet-network-type',
    reason: 'a key later ML2/OVN releases write on provider networks',
  },
  {
    change: 'Logical_Switch.external_ids:neutron:provnet-physical-network',
    reason: 'a key later ML2/OVN releases write on provider networks',
  },
  {
    change: 'Logical_Switch.other_config:fdb_age_threshold',
    reason:
      "octonet's `fdb_age_threshold` option (300 s, as ML2/OVN 2023.1's) on provider networks; Zed lets the FDB grow",
  },
  {
    change: 'Logical_Switch.other_config:broadcast-arps-to-all-routers',
    reason: "octonet's `broadcast_arps_to_all_routers` option (on, as ML2/OVN 2024.1's) on external networks",
  },
  {
    change: 'Logical_Switch_Port.external_ids:neutron:revision_number',
    optional: true,
    reason: "revision stamps (a port's binding and status move its revision without an NB write in Zed)",
  },
  {
    change: 'Logical_Switch_Port.external_ids:neutron:host_id',
    reason: 'a key later ML2/OVN releases write on active bound ports',
  },
  {
    change: 'Logical_Switch_Port.external_ids:neutron:mtu',
    reason: 'a key later ML2/OVN releases write (the network MTU on metadata ports, empty elsewhere)',
  },
  {
    change: 'Logical_Switch_Port.external_ids:neutron:port_capabilities',
    reason: 'a key later ML2/OVN releases write (binding profile capabilities)',
  },
  { change: 'Logical_Switch_Port.external_ids:neutron:vnic_type', reason: 'a key later ML2/OVN releases write' },
  {
    change: 'Logical_Switch_Port.external_ids:neutron:subnet_pool_addr_scope4',
    reason: 'a key later ML2/OVN releases write (address scopes, read by the OVN BGP agent); empty',
  },
  { change: 'Logical_Switch_Port.external_ids:neutron:subnet_pool_addr_scope6', reason: 'as above, IPv6' },
  {
    change: 'Logical_Switch_Port.options:requested-chassis',
    reason:
      'Zed leaves `requested-chassis=""` on a port it updated while unbound; octonet sets the key only for a bound host (an empty one means nothing to OVN)',
  },
  {
    change: 'Logical_Router.external_ids:neutron:revision_number',
    optional: true,
    reason: "revision stamps (adding an interface moves the router's revision)",
  },
  {
    change: 'Logical_Router.options:mac_binding_age_threshold',
    reason: "octonet's `mac_binding_age_threshold` option (300 s, as ML2/OVN 2023.2's); Zed keeps MAC bindings forever",
  },
  {
    change: 'Logical_Router_Port.external_ids:neutron:is_ext_gw',
    reason: "octonet finds a router's gateway port by it (later ML2/OVN releases write it too)",
  },
  {
    change: 'Logical_Router_Port.external_ids:neutron:revision_number',
    optional: true,
    reason:
      "revision stamps (a router port's status moves its revision without an NB write in Zed, when that comes after Zed's last write)",
  },
  {
    change: 'Logical_Router_Port.options:gateway_mtu',
    reason:
      "octonet always sets the gateway port's MTU to the smallest of the router's networks, as ML2/OVN with `ovn_emit_need_to_frag` (off by default in Zed): too large packets get ICMP need-to-frag instead of being dropped",
  },
  {
    change: 'Logical_Router_Port.options:reside-on-redirect-chassis',
    reason:
      'octonet centralises routing on flat networks as on VLAN ones (later ML2/OVN releases do too); Zed sets it on VLAN networks only',
  },
  {
    change: 'NAT.external_ids:neutron:fip_external_mac',
    reason:
      "Zed records the floating IP port's MAC; octonet, whose driver state carries no floating IP port, records the fixed port's MAC with distributed floating IPs and nothing without",
  },
  {
    change: 'DHCP_Options.external_ids:neutron:network_id',
    reason: "octonet finds a network's DHCP rows by it when the network goes",
  },
];

/** A hang guard for the waits below (a loaded 2-core machine), not a timing assertion. */
const WAIT_MS = 180_000;
const TCP_PORT = 9000;

type Json = Record<string, unknown> & { id: string };

async function post(base: string, path: string, body: unknown): Promise<Json> {
  const response = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) });
  const text = await response.text();
  assert.equal(response.status, 201, `${path}: ${response.status} ${text}`);
  const parsed = JSON.parse(text) as Record<string, Json>;
  return Object.values(parsed)[0]!;
}

async function put(base: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${base}${path}`, { method: 'PUT', body: JSON.stringify(body) });
  assert.equal(response.status, 200, `${path}: ${response.status} ${await response.text()}`);
}

/** `octonet_ovn_full_syncs_total` and `octonet_ovn_nb_transactions_total`, summed over labels. */
async function counters(serve: ServeProcess): Promise<{ fullSyncs: number; transactions: number }> {
  const text = await (await fetch(`${serve.url}/metrics`)).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
  return { fullSyncs: sum('octonet_ovn_full_syncs_total'), transactions: sum('octonet_ovn_nb_transactions_total') };
}

/** A probe from the outside host: ping every 200 ms, and a TCP connection every 300 ms or so. */
interface Probe {
  stop(): Promise<{ pingsSent: number; pingsLost: number[]; tcpOk: number; tcpFailed: number }>;
}

function startProbe(argv: (inner: string[]) => string[], address: string, stopFile: string): Probe {
  const output = (child: ChildProcess) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return () => text;
  };
  const pingArgv = argv(['ping', '-O', '-n', '-i', '0.2', '-W', '1', address]);
  const ping = spawn(pingArgv[0]!, pingArgv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  const pingOut = output(ping);
  const pingDone = new Promise((resolve) => ping.once('close', resolve));
  const loop =
    `while [ ! -e ${stopFile} ]; do ` +
    `if socat -u TCP4:${address}:${TCP_PORT},connect-timeout=2 STDOUT 2>/dev/null | grep -q ok; ` +
    `then echo OK; else echo FAIL; fi; sleep 0.3; done`;
  const tcpArgv = argv(['bash', '-c', loop]);
  const tcp = spawn(tcpArgv[0]!, tcpArgv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  const tcpOut = output(tcp);
  const tcpDone = new Promise((resolve) => tcp.once('close', resolve));
  return {
    async stop() {
      writeFileSync(stopFile, '');
      ping.kill('SIGINT');
      await Promise.all([pingDone, tcpDone]);
      const answered = new Set([...pingOut().matchAll(/icmp_seq=(\d+) ttl=/g)].map((m) => Number(m[1])));
      const sent = Math.max(0, ...[...pingOut().matchAll(/icmp_seq=(\d+)/g)].map((m) => Number(m[1])));
      const pingsLost = Array.from({ length: sent }, (_, i) => i + 1).filter((seq) => !answered.has(seq));
      const lines = tcpOut().split('\n');
      return {
        pingsSent: sent,
        pingsLost,
        tcpOk: lines.filter((l) => l === 'OK').length,
        tcpFailed: lines.filter((l) => l === 'FAIL').length,
      };
    },
  };
}

const requireNeutron = process.env.CI === 'true';

describe(
  'octonet takes over the NB a real Neutron Zed wrote',
  { skip: notRoot || (!neutronAvailable() && !requireNeutron) },
  () => {
    const { lab, scratch } = useLab({ name: 'oct-nbto', nodes: 1 });
    let neutron: PrivateNeutron;
    let target: TestDatabase;
    let serve: ServeProcess | undefined;
    let probe: Probe | undefined;
    let fip: string;
    let neutronNb: NbDump;
    let firstPass: NbDump;
    let transactionsAfterFirst: number;
    let responderProcess: ChildProcess | undefined;

    before(async () => {
      neutron = await startPrivateNeutron({ ovn: { nb: lab().nb, sb: lab().sb } });
      const base = neutron.url;
      const publicNet = await post(base, '/v2.0/networks', {
        network: {
          name: 'public',
          'router:external': true,
          'provider:network_type': 'flat',
          'provider:physical_network': 'physnet1',
        },
      });
      const publicSubnet = await post(base, '/v2.0/subnets', {
        subnet: {
          network_id: publicNet.id,
          cidr: '198.51.100.0/24',
          ip_version: 4,
          gateway_ip: OUTSIDE_ADDRESS,
          enable_dhcp: false,
          allocation_pools: [{ start: '198.51.100.10', end: '198.51.100.90' }],
        },
      });
      const vlan = await post(base, '/v2.0/networks', {
        network: {
          name: 'vlan-p',
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': 150,
        },
      });
      await post(base, '/v2.0/subnets', { subnet: { network_id: vlan.id, cidr: '10.150.0.0/24', ip_version: 4 } });
      const tenant = await post(base, '/v2.0/networks', { network: { name: 'tenant' } });
      const subnet = await post(base, '/v2.0/subnets', {
        subnet: { network_id: tenant.id, cidr: '10.10.0.0/24', ip_version: 4, dns_nameservers: ['192.0.2.53'] },
      });
      const router = await post(base, '/v2.0/routers', {
        router: { name: 'r1', external_gateway_info: { network_id: publicNet.id } },
      });
      await put(base, `/v2.0/routers/${router.id}/add_router_interface`, { subnet_id: subnet.id });
      const group = await post(base, '/v2.0/security-groups', { security_group: { name: 'probe' } });
      for (const rule of [
        { protocol: 'icmp' },
        { protocol: 'tcp', port_range_min: TCP_PORT, port_range_max: TCP_PORT, remote_ip_prefix: '0.0.0.0/0' },
      ])
        await post(base, '/v2.0/security-group-rules', {
          security_group_rule: { security_group_id: group.id, direction: 'ingress', ethertype: 'IPv4', ...rule },
        });
      const port = await post(base, '/v2.0/ports', {
        port: {
          network_id: tenant.id,
          name: 'vm1',
          device_owner: 'compute:nova',
          device_id: 'a2a0ae4c-6b3b-4b2c-9c5e-0c7a1c9d0e01',
          'binding:host_id': 'node1',
          security_groups: [group.id],
        },
      });
      await post(base, '/v2.0/ports', {
        port: {
          network_id: tenant.id,
          name: 'pxe',
          extra_dhcp_opts: [{ opt_name: 'bootfile-name', opt_value: 'pxelinux.0' }],
        },
      });
      fip = (
        await post(base, '/v2.0/floatingips', { floatingip: { floating_network_id: publicNet.id, port_id: port.id } })
      ).floating_ip_address as string;
      assert.ok(publicSubnet.id);

      await lab().createVm({ node: 'node1', port: port.id, name: 'vm1' });
      const responder = lab().vmCommand('vm1', ['socat', `TCP4-LISTEN:${TCP_PORT},fork,reuseaddr`, 'SYSTEM:echo ok']);
      responderProcess = spawn(responder[0]!, responder.slice(1), { stdio: 'ignore' });
      await pollUntil(
        async () => (await lab().exec(lab().outsideCommand(['ping', '-c', '1', '-W', '1', fip]))).code === 0,
        `the floating IP ${fip} answering the outside through Neutron's NB`,
        WAIT_MS,
      );
    });

    after(async () => {
      // The lab may be gone already (useLab's own `after`): the probe then ended with it.
      await probe?.stop().catch(() => undefined);
      responderProcess?.kill();
      await serve?.stop();
      await neutron?.stop();
      await target?.drop();
    });

    it('switches from Neutron to octonet with the probe running', async () => {
      probe = startProbe((inner) => lab().outsideCommand(inner), fip, join(scratch(), 'probe-stop'));
      await check(lab(), lab().outsideCommand(['ping', '-c', '3', '-i', '0.2', '-W', '2', fip]));
      await neutron.stopServer();
      neutronNb = dumpNb(lab().nb);

      target = await createBackendDatabase('sqlite');
      const store = await openStore(target.url);
      try {
        assert.equal((await importNeutron(neutron.databaseUrl, store)).outcome, 'imported');
      } finally {
        await store.close();
      }
      serve = await startServeProcess(target.url, {
        config: {
          network: { dns_domain: 'openstackgate.local.' },
          ovn: { nb_connection: lab().nb, sb_connection: lab().sb, full_sync_interval: 20 },
        },
      });
      const running = serve;
      await pollUntil(async () => (await counters(running)).fullSyncs >= 1, 'the first full pass', WAIT_MS);
      firstPass = dumpNb(lab().nb);
      transactionsAfterFirst = (await counters(running)).transactions;
    });

    it('its first full pass changes the NB exactly as documented', (t) => {
      const changes = nbChanges(neutronNb, firstPass);
      for (const [change, example] of nbChangeExamples(neutronNb, firstPass)) t.diagnostic(`${change}: ${example}`);
      // Revision stamps differ only where Neutron's revision moved after its last NB write, which
      // depends on the order its status updates came in: those may be absent; nothing else may be.
      assert.deepEqual(
        changes.filter((c) => !KNOWN.some((k) => k.change === c)),
        [],
        'changes outside the documented list',
      );
      assert.deepEqual(
        KNOWN.filter((k) => !k.optional && !changes.includes(k.change)).map((k) => k.change),
        [],
        'documented changes that did not happen',
      );
    });

    it('a second full pass writes nothing', async () => {
      const running = serve!;
      await pollUntil(async () => (await counters(running)).fullSyncs >= 2, 'the second full pass', WAIT_MS);
      assert.equal(
        (await counters(running)).transactions,
        transactionsAfterFirst,
        'no NB transaction since the first pass',
      );
      assert.deepEqual(nbChanges(firstPass, dumpNb(lab().nb)), []);
    });

    it('the probe lost nothing across the switch', async (t) => {
      const result = await probe!.stop();
      probe = undefined;
      t.diagnostic(JSON.stringify(result));
      assert.ok(result.pingsSent > 0 && result.tcpOk > 0, 'the probe ran');
      assert.deepEqual(result.pingsLost, [], 'every ping answered');
      assert.equal(result.tcpFailed, 0, 'every TCP connection answered');
    });
  },
);
