/**
 * The real `openstack` CLI against octonet, on both stores: the command set verified against the
 * real Neutron (../shared/anchors/neutron-zed, cli-check.sh), with `-f json` output asserted and
 * the stored result read back over HTTP. The CLI acts as admin of the noauth default project.
 *
 * Every call costs about a second of Python start-up, so each backend runs one sequence of about
 * fifteen calls, and the two backends run side by side.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';
import { OpenstackCli } from '../fixtures/openstack-cli.js';

const PROJECT = 'fake_project_id';

describe('openstack CLI', { concurrency: true }, () => {
  for (const backend of BACKENDS) {
    describe(`openstack CLI (${backend})`, { concurrency: 1 }, () => {
      const api = useApi(backend);
      let cli: OpenstackCli;
      before(() => {
        cli = new OpenstackCli(api.url);
      });

      // Filled in as the sequence goes: later commands use what earlier ones made.
      let vlanId: string;
      let appNetId: string;
      let subnetId: string;

      it('extension list --network shows the extensions the API lists', async () => {
        const listed = await cli.json<{ Name: string; Alias: string; Description: string }[]>([
          'extension',
          'list',
          '--network',
        ]);
        const fromApi = (await api.admin.get('/v2.0/extensions')).body.extensions as { alias: string }[];
        assert.deepEqual(listed.map((e) => e.Alias).sort(), fromApi.map((e) => e.alias).sort());
        for (const alias of ['provider', 'external-net', 'allowed-address-pairs', 'security-group', 'binding']) {
          assert.ok(
            listed.some((e) => e.Alias === alias),
            `extension ${alias} listed`,
          );
        }
        const provider = listed.find((e) => e.Alias === 'provider')!;
        assert.equal(provider.Name, 'Provider Network');
      });

      it('network create, set, show and delete', async () => {
        const created = await cli.json(['network', 'create', 'cli-net', '--description', 'first']);
        assert.equal(created.name, 'cli-net');
        assert.equal(created.description, 'first');
        assert.equal(created.status, 'ACTIVE');
        assert.equal(created.admin_state_up, true);
        assert.equal(created.project_id, PROJECT);
        assert.equal(created['provider:network_type'], 'geneve');
        assert.equal(created.mtu, 1442);
        assert.equal(created.revision_number, 1);

        await cli.ok(['network', 'set', 'cli-net', '--name', 'cli-net2', '--mtu', '1400', '--description', 'second']);
        const shown = await cli.json(['network', 'show', 'cli-net2']);
        assert.equal(shown.id, created.id);
        assert.equal(shown.name, 'cli-net2');
        assert.equal(shown.mtu, 1400);
        assert.equal(shown.description, 'second');
        assert.equal(shown.revision_number, 2);
        const stored = await api.admin.get(`/v2.0/networks/${created.id}`);
        assert.equal(stored.body.network.name, 'cli-net2');
        assert.equal(stored.body.network.mtu, 1400);

        await cli.ok(['network', 'delete', 'cli-net2']);
        assert.equal((await api.admin.get(`/v2.0/networks/${created.id}`)).status, 404);
      });

      it('network create with a provider VLAN, --external and --share, as admin', async () => {
        const created = await cli.json([
          'network',
          'create',
          'cli-vlan',
          '--provider-network-type',
          'vlan',
          '--provider-physical-network',
          'physnet1',
          '--provider-segment',
          '100',
          '--external',
          '--share',
        ]);
        vlanId = created.id;
        assert.equal(created['provider:network_type'], 'vlan');
        assert.equal(created['provider:physical_network'], 'physnet1');
        assert.equal(created['provider:segmentation_id'], 100);
        assert.equal(created['router:external'], true);
        assert.equal(created.shared, true);
        assert.equal(created.mtu, 1500);
        // Shared: another project sees it too.
        const seen = await api.as({ project: newProjectId() }).get(`/v2.0/networks/${vlanId}`);
        assert.equal(seen.status, 200, seen.text);
        assert.equal(seen.body.network.shared, true);
        assert.equal(seen.body.network['router:external'], true);
      });

      it('subnet create with a range, a pool, no gateway, a host route and a DNS server', async () => {
        appNetId = (await cli.json(['network', 'create', 'cli-app'])).id;
        const subnet = await cli.json([
          'subnet',
          'create',
          'cli-sub',
          '--network',
          'cli-app',
          '--subnet-range',
          '10.123.0.0/24',
          '--allocation-pool',
          'start=10.123.0.10,end=10.123.0.99',
          '--gateway',
          'none',
          '--host-route',
          'destination=192.168.9.0/24,gateway=10.123.0.254',
          '--dns-nameserver',
          '192.0.2.53',
        ]);
        subnetId = subnet.id;
        assert.equal(subnet.network_id, appNetId);
        assert.equal(subnet.cidr, '10.123.0.0/24');
        assert.equal(subnet.ip_version, 4);
        assert.equal(subnet.gateway_ip, null);
        assert.equal(subnet.enable_dhcp, true);
        assert.deepEqual(subnet.allocation_pools, [{ start: '10.123.0.10', end: '10.123.0.99' }]);
        assert.deepEqual(subnet.host_routes, [{ destination: '192.168.9.0/24', nexthop: '10.123.0.254' }]);
        assert.deepEqual(subnet.dns_nameservers, ['192.0.2.53']);
        const network = await api.admin.get(`/v2.0/networks/${appNetId}`);
        assert.deepEqual(network.body.network.subnets, [subnetId]);
      });

      it("subnet create that overlaps exits non-zero with Neutron's InvalidInput message", async () => {
        const r = await cli.fails([
          'subnet',
          'create',
          'cli-overlap',
          '--network',
          'cli-app',
          '--subnet-range',
          '10.123.0.128/25',
        ]);
        assert.match(r.stderr, /BadRequestException: 400/);
        assert.ok(
          r.stderr.includes(
            `Invalid input for operation: Requested subnet with cidr: 10.123.0.128/25 for network: ${appNetId} overlaps with another subnet.`,
          ),
          r.stderr,
        );
        const subnets = await api.admin.get(`/v2.0/subnets?network_id=${appNetId}`);
        assert.deepEqual(
          subnets.body.subnets.map((s: { id: string }) => s.id),
          [subnetId],
        );
      });

      it('port create with a fixed IP, an allowed address and a device owner', async () => {
        const port = await cli.json([
          'port',
          'create',
          'cli-port',
          '--network',
          'cli-app',
          '--fixed-ip',
          'subnet=cli-sub,ip-address=10.123.0.20',
          '--allowed-address',
          'ip-address=10.123.0.250',
          '--device-owner',
          'compute:nova',
        ]);
        assert.equal(port.network_id, appNetId);
        assert.deepEqual(port.fixed_ips, [{ subnet_id: subnetId, ip_address: '10.123.0.20' }]);
        assert.match(port.mac_address, /^fa:16:3e(:[0-9a-f]{2}){3}$/);
        // An address pair without a MAC takes the port's.
        assert.deepEqual(port.allowed_address_pairs, [{ ip_address: '10.123.0.250', mac_address: port.mac_address }]);
        assert.equal(port.device_owner, 'compute:nova');
        assert.equal(port.status, 'DOWN');
        assert.equal(port.security_group_ids.length, 1, "the project's default group");
        const stored = await api.admin.get(`/v2.0/ports/${port.id}`);
        assert.deepEqual(stored.body.port.fixed_ips, port.fixed_ips);
      });

      it('security group create and security group rule create', async () => {
        const group = await cli.json(['security', 'group', 'create', 'cli-sg', '--description', 'ssh in']);
        assert.equal(group.name, 'cli-sg');
        assert.equal(group.description, 'ssh in');
        assert.deepEqual(
          (group.rules as { direction: string; ethertype: string }[])
            .map((r) => `${r.direction}/${r.ethertype}`)
            .sort(),
          ['egress/IPv4', 'egress/IPv6'],
        );
        const rule = await cli.json([
          'security',
          'group',
          'rule',
          'create',
          'cli-sg',
          '--protocol',
          'tcp',
          '--dst-port',
          '22',
          '--remote-ip',
          '0.0.0.0/0',
        ]);
        assert.equal(rule.security_group_id, group.id);
        assert.equal(rule.direction, 'ingress');
        assert.equal(rule.ether_type, 'IPv4');
        assert.equal(rule.protocol, 'tcp');
        assert.equal(rule.port_range_min, 22);
        assert.equal(rule.port_range_max, 22);
        assert.equal(rule.remote_ip_prefix, '0.0.0.0/0');
        const stored = await api.admin.get(`/v2.0/security-group-rules?security_group_id=${group.id}`);
        assert.equal(stored.body.security_group_rules.length, 3);
      });

      it('network list --long shows type, sharing, external flag and subnets', async () => {
        const rows = await cli.json<Record<string, unknown>[]>(['network', 'list', '--long']);
        const byName = new Map(rows.map((r) => [r.Name, r]));
        assert.deepEqual([...byName.keys()].sort(), ['cli-app', 'cli-vlan']);
        assert.deepEqual(byName.get('cli-vlan'), {
          ID: vlanId,
          Name: 'cli-vlan',
          Status: 'ACTIVE',
          Project: PROJECT,
          State: true,
          Shared: true,
          Subnets: [],
          'Network Type': 'vlan',
          'Router Type': true,
          'Availability Zones': [],
          Tags: [],
        });
        assert.equal(byName.get('cli-app')!['Network Type'], 'geneve');
        assert.equal(byName.get('cli-app')!['Router Type'], false);
        assert.equal(byName.get('cli-app')!.Shared, false);
        assert.deepEqual(byName.get('cli-app')!.Subnets, [subnetId]);
      });

      it('network delete refuses a network with ports (NetworkInUse), then deletes both networks', async () => {
        const r = await cli.fails(['network', 'delete', 'cli-app']);
        assert.match(r.stderr, /ConflictException: 409/);
        assert.ok(r.stderr.includes(`Unable to complete operation on network ${appNetId}.`), r.stderr);
        const ports = await api.admin.get(`/v2.0/ports?network_id=${appNetId}`);
        for (const port of ports.body.ports as { id: string }[]) {
          assert.equal((await api.admin.delete(`/v2.0/ports/${port.id}`)).status, 204);
        }
        await cli.ok(['network', 'delete', 'cli-app', 'cli-vlan']);
        assert.equal((await api.admin.get(`/v2.0/networks/${appNetId}`)).status, 404);
        assert.equal((await api.admin.get(`/v2.0/networks/${vlanId}`)).status, 404);
      });
    });
  }
});
