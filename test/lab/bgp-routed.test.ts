/**
 * BGP with a floating IP from a routed subnet, with real packets: the external network has a second
 * subnet, 100.64.0.0/20 without a gateway, that no cloudgw is on, so the cloudgws and the core reach
 * its floating IPs only through the /32 a gateway node announces (next hop: the router's gateway
 * address on the on-link subnet). When the active gateway node dies, OVN moves the `cr-lrp` to the
 * other gateway chassis, that node's agent announces the /32, and traffic resumes through it.
 *
 * Unlike an on-link floating IP (which the cloudgws can still reach by ARP over their connected
 * route while the announcement moves), the routed one has no route at all between the old node's
 * session dropping and the new node's announcement; the cloudgws answer "Destination Net
 * Unreachable" meanwhile. That window is short and closes by itself; the probe must not treat its
 * ICMP errors as the end (iputils ping with `-w` stops at the first one, which is what made
 * `bench:bgp --routed-failover` report that traffic never came back). Traffic then waits for the
 * underlay switch to learn the router's MAC on the new node, from the new gateway chassis' first
 * gratuitous ARP (bench/README.md has the timeline).
 *
 * Lab `bgpf`: 3 nodes, the VM on node1, gateways on node2 and node3, `--bgp`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Json } from '../fixtures/json.js';
import { coreReaches, ribPaths, useBgpWorld } from './bgp-fixture.js';
import { created, notRoot, pollUntil } from './lab-fixture.js';

const ROUTED = '100.64.0.0/20';

describe(
  'octonet on the lab: BGP, a floating IP from a routed subnet across a gateway failover',
  { skip: notRoot },
  () => {
    const world = useBgpWorld('bgpf', { distributed: false });
    const { lab, api } = world;
    let fip = '';
    let gatewayMac = '';

    /** Which underlay bridge port the router's gateway MAC was last seen on (`ph-<node>`). */
    const bridgePortOfGateway = async (): Promise<string | undefined> => {
      const argv = ['ip', 'netns', 'exec', lab().layout.namespaces.underlay, 'bridge', '-j', 'fdb', 'show'];
      const entries = JSON.parse((await lab().exec(argv)).stdout) as { mac: string; ifname: string }[];
      return entries.find((e) => e.mac === gatewayMac)?.ifname;
    };

    const announcingNode = async (cloudgw: string): Promise<string | undefined> => {
      const [path] = await ribPaths(lab(), cloudgw, `${fip}/32`);
      return path ? world.nodeOfPeer(path.peer) : undefined;
    };
    /** Every node the cloudgw has a path from (a dead node's stale one included). */
    const announcingNodes = async (cloudgw: string): Promise<string[]> => {
      const paths = await ribPaths(lab(), cloudgw, `${fip}/32`);
      return (await Promise.all(paths.map((p) => world.nodeOfPeer(p.peer)))).filter((n): n is string => !!n);
    };

    it('the routed floating IP is announced from the active gateway and reached from the core by BGP alone', async () => {
      const subnet = (
        await created(api.admin, '/v2.0/subnets', {
          subnet: {
            network_id: world.external().id,
            cidr: ROUTED,
            ip_version: 4,
            gateway_ip: null,
            enable_dhcp: false,
          },
        })
      ).subnet as Json;
      const body = await created(api.admin, '/v2.0/floatingips', {
        floatingip: { floating_network_id: world.external().id, subnet_id: subnet.id, port_id: world.vmPort().id },
      });
      fip = body.floatingip.floating_ip_address as string;
      assert.match(fip, /^100\.64\./);
      const gatewayPort = (
        await api.admin.get(`/v2.0/ports?device_id=${world.router().id}&device_owner=network:router_gateway`)
      ).body.ports[0] as Json;
      gatewayMac = gatewayPort.mac_address as string;

      const active = await world.activeGateway();
      for (const cloudgw of ['cloudgw1', 'cloudgw2']) {
        await pollUntil(
          async () => (await announcingNode(cloudgw)) === active,
          `${fip}/32 from ${active} in ${cloudgw}`,
        );
        assert.deepEqual(
          (await ribPaths(lab(), cloudgw, `${fip}/32`)).map((p) => p.nextHop),
          [world.gatewayIp()],
          "one path, the router's gateway as next hop",
        );
      }
      // The cloudgws are not on 100.64.0.0/20: their only way to the address is the BGP route.
      const cloudgw1 = lab().layout.cloudgwNamespace('cloudgw1');
      const route = await lab().exec(['ip', 'netns', 'exec', cloudgw1, 'ip', '-j', 'route', 'get', fip]);
      const [entry] = JSON.parse(route.stdout) as { gateway?: string }[];
      assert.equal(entry?.gateway, world.gatewayIp(), "cloudgw1 forwards to the router's gateway address");
      await coreReaches(lab(), fip);
      assert.equal(
        await bridgePortOfGateway(),
        lab().layout.physicalPort(active),
        'the answers came from the active node',
      );
    });

    it('failing the active gateway node moves the /32 to the other node, and traffic resumes through it', async () => {
      const before = await world.activeGateway();
      await lab().killNode(before);
      const after = await pollUntil(
        async () => (await announcingNodes('cloudgw1')).find((node) => node !== before),
        `${fip}/32 announced by the other gateway node`,
      );
      assert.equal(await world.activeGateway(), after, "the new announcer holds the router's gateway");
      await pollUntil(
        async () => (await announcingNodes('cloudgw2')).includes(after),
        `${fip}/32 from ${after} in cloudgw2`,
      );
      for (const cloudgw of ['cloudgw1', 'cloudgw2']) {
        // The new node can announce before the dead node's path is gone, and a cloudgw that helps
        // graceful restart may keep that path as stale for a while: harmless, as n-d-r's next hop is
        // the router's gateway address, wherever it lives. So every path left must point there.
        const paths = await ribPaths(lab(), cloudgw, `${fip}/32`);
        assert.ok(paths.length >= 1, `${cloudgw} has a path for ${fip}/32`);
        assert.deepEqual(
          [...new Set(paths.map((p) => p.nextHop))],
          [world.gatewayIp()],
          `${cloudgw}: every path still to the router's gateway address`,
        );
      }
      await coreReaches(lab(), fip);
      assert.equal(
        await bridgePortOfGateway(),
        lab().layout.physicalPort(after),
        "the router's gateway MAC now answers from the new gateway node",
      );
    });
  },
);
