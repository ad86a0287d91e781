/**
 * The error catalogue over HTTP: each case with Neutron's exact body (the golden samples of the
 * Zed anchor, master's text where they differ), and failed writes leaving nothing behind; on both
 * stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKENDS, newProjectId, useApi } from '../fixtures/api.js';
import { assertError } from '../fixtures/errors.js';
import {
  addresses,
  createNetwork,
  createPort,
  createSubnet,
  networkWithSubnet,
  type Item,
} from '../fixtures/topology.js';

const MISSING = '00000000-0000-0000-0000-00000000dead';
const METHOD_NOT_ALLOWED =
  'The server could not comply with the request since it is either malformed or otherwise incorrect.';

for (const backend of BACKENDS) {
  describe(`errors (${backend})`, () => {
    const api = useApi(backend);
    const member = (project = newProjectId()) => api.as({ project });

    /** A member's network with 10.20.0.0/24 and one port at 10.20.0.20. */
    async function setup() {
      const project = newProjectId();
      const client = member(project);
      const { network, subnet } = await networkWithSubnet(client, '10.20.0.0/24');
      const port = await createPort(client, network.id, {
        fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.20.0.20' }],
      });
      return { project, client, network, subnet, port };
    }

    describe('the catalogue', () => {
      it('invalid CIDR', async () => {
        const { client, network } = await setup();
        for (const cidr of ['10.30.0.0/33', 'not-a-cidr']) {
          const r = await client.post('/v2.0/subnets', { subnet: { network_id: network.id, ip_version: 4, cidr } });
          assertError(r, 400, 'InvalidInput', `Invalid input for operation: ${cidr} is not in a CIDR format.`);
        }
      });

      it('overlapping subnets', async () => {
        const { client, network } = await setup();
        const r = await client.post('/v2.0/subnets', {
          subnet: { network_id: network.id, ip_version: 4, cidr: '10.20.0.128/25' },
        });
        assertError(
          r,
          400,
          'InvalidInput',
          `Invalid input for operation: Requested subnet with cidr: 10.20.0.128/25 for network: ${network.id} overlaps with another subnet.`,
        );
      });

      it('unknown network', async () => {
        const r = await member().post('/v2.0/ports', { port: { network_id: MISSING } });
        assertError(r, 404, 'NetworkNotFound', `Network ${MISSING} could not be found.`);
      });

      it('IP outside the subnet, IP on no subnet of the network', async () => {
        const { client, network, subnet } = await setup();
        const outside = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ subnet_id: subnet.id, ip_address: '192.168.99.5' }] },
        });
        assertError(
          outside,
          400,
          'InvalidIpForSubnet',
          'IP address 192.168.99.5 is not a valid IP for the specified subnet.',
        );
        const nowhere = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ ip_address: '192.168.99.5' }] },
        });
        assertError(
          nowhere,
          400,
          'InvalidIpForNetwork',
          'IP address 192.168.99.5 is not a valid IP for any of the subnets on the specified network.',
        );
      });

      it('IP already in use', async () => {
        const { client, network, subnet } = await setup();
        const r = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ subnet_id: subnet.id, ip_address: '10.20.0.20' }] },
        });
        assertError(
          r,
          409,
          'IpAddressAlreadyAllocated',
          `IP address 10.20.0.20 already allocated in subnet ${subnet.id}`,
        );
      });

      it('network in use on delete, subnet in use on delete', async () => {
        const { client, network, subnet, port } = await setup();
        assertError(
          await client.delete(`/v2.0/networks/${network.id}`),
          409,
          'NetworkInUse',
          `Unable to complete operation on network ${network.id}. There are one or more ports still in use on the network, id for these ports is: ${port.id}.`,
        );
        assertError(
          await client.delete(`/v2.0/subnets/${subnet.id}`),
          409,
          'SubnetInUse',
          `Unable to complete operation on subnet ${subnet.id}: One or more ports have an IP allocation from this subnet.`,
        );
      });

      it('malformed UUID: in the path a 404 of the resource, in the body a 400', async () => {
        const client = member();
        assertError(
          await client.get('/v2.0/networks/not-a-uuid'),
          404,
          'NetworkNotFound',
          'Network not-a-uuid could not be found.',
        );
        assertError(
          await client.get('/v2.0/subnets/not-a-uuid'),
          404,
          'SubnetNotFound',
          'Subnet not-a-uuid could not be found.',
        );
        assertError(
          await client.put('/v2.0/ports/not-a-uuid', { port: { name: 'x' } }),
          404,
          'PortNotFound',
          'Port not-a-uuid could not be found.',
        );
        assertError(
          await client.delete('/v2.0/ports/not-a-uuid'),
          404,
          'PortNotFound',
          'Port not-a-uuid could not be found.',
        );
        assertError(
          await client.post('/v2.0/ports', { port: { network_id: 'not-a-uuid' } }),
          400,
          'HTTPBadRequest',
          "Invalid input for network_id. Reason: 'not-a-uuid' is not a valid UUID.",
        );
      });

      it('unknown attribute', async () => {
        const { client, port } = await setup();
        assertError(
          await client.post('/v2.0/networks', { network: { name: 'x', bogus_attr: 1 } }),
          400,
          'HTTPBadRequest',
          "Unrecognized attribute(s) 'bogus_attr'",
        );
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { port: { bogus_attr: 1 } }),
          400,
          'HTTPBadRequest',
          "Unrecognized attribute(s) 'bogus_attr'",
        );
      });

      it('bodies that are not JSON objects, or lack the resource', async () => {
        const { client, port } = await setup();
        for (const raw of ['{not json', '[]', 'null', '"x"', '1']) {
          assertError(await client.post('/v2.0/networks', raw), 400, 'HTTPBadRequest', 'Body contains invalid data');
        }
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, '{not json'),
          400,
          'HTTPBadRequest',
          'Body contains invalid data',
        );
        for (const body of [undefined, {}, { name: 'x' }, { network: null }]) {
          assertError(
            await client.post('/v2.0/networks', body),
            400,
            'HTTPBadRequest',
            "Unable to find 'network' in request body",
          );
        }
        assertError(
          await client.post('/v2.0/networks', { network: 'x' }),
          400,
          'HTTPBadRequest',
          "Object 'network' contains invalid data",
        );
      });

      it('missing required field', async () => {
        const { client, network } = await setup();
        assertError(
          await client.post('/v2.0/ports', { port: { name: 'no-network' } }),
          400,
          'HTTPBadRequest',
          "Failed to parse request. Required attribute 'network_id' not specified",
        );
        assertError(
          await client.post('/v2.0/subnets', { subnet: { network_id: network.id, ip_version: 4 } }),
          400,
          'BadRequest',
          'Bad subnets request: a subnetpool must be specified in the absence of a cidr.',
        );
        assertError(
          await client.post('/v2.0/subnets', { subnet: { network_id: network.id, cidr: '10.21.0.0/24' } }),
          400,
          'HTTPBadRequest',
          "Failed to parse request. Required attribute 'ip_version' not specified",
        );
      });

      it('wrong types: "maybe", 7, null and "" are no booleans; "yes", "true", "1", "off", 0 are', async () => {
        const client = member();
        for (const [value, text] of [
          ['maybe', 'maybe'],
          [7, '7'],
          [null, 'None'],
          ['', ''],
        ] as const) {
          assertError(
            await client.post('/v2.0/networks', { network: { name: 'x', admin_state_up: value } }),
            400,
            'InvalidInput',
            `Invalid input for operation: '${text}' cannot be converted to boolean.`,
          );
        }
        for (const [value, expected] of [
          ['yes', true],
          ['true', true],
          ['1', true],
          ['True', true],
          ['off', false],
          [0, false],
        ] as const) {
          const net = await createNetwork(client, { admin_state_up: value });
          assert.equal(net.admin_state_up, expected, String(value));
        }
        assertError(
          await client.post('/v2.0/networks', { network: { name: 'x', mtu: 'abc' } }),
          400,
          'InvalidInput',
          "Invalid input for operation: 'abc' is not an integer.",
        );
      });

      it('provider and other admin-only attributes from a non-admin', async () => {
        const { client, network } = await setup();
        assertError(
          await client.post('/v2.0/networks', { network: { name: 'x', 'provider:network_type': 'vlan' } }),
          403,
          'PolicyNotAuthorized',
          '(rule:create_network and rule:create_network:provider:network_type) is disallowed by policy',
        );
        assertError(
          await client.post('/v2.0/networks', { network: { name: 'x', shared: true } }),
          403,
          'PolicyNotAuthorized',
          '(rule:create_network and rule:create_network:shared) is disallowed by policy',
        );
        assertError(
          await client.put(`/v2.0/networks/${network.id}`, { network: { 'provider:segmentation_id': 5 } }),
          403,
          'PolicyNotAuthorized',
          '(rule:update_network and rule:update_network:provider:segmentation_id) is disallowed by policy',
        );
      });

      it("another project's resources are 404, not 403", async () => {
        const { network, subnet, port } = await setup();
        const other = member();
        const networkGone = `Network ${network.id} could not be found.`;
        assertError(await other.get(`/v2.0/networks/${network.id}`), 404, 'NetworkNotFound', networkGone);
        assertError(
          await other.put(`/v2.0/networks/${network.id}`, { network: { name: 'stolen' } }),
          404,
          'NetworkNotFound',
          networkGone,
        );
        assertError(await other.delete(`/v2.0/networks/${network.id}`), 404, 'NetworkNotFound', networkGone);
        assertError(
          await other.get(`/v2.0/subnets/${subnet.id}`),
          404,
          'SubnetNotFound',
          `Subnet ${subnet.id} could not be found.`,
        );
        assertError(
          await other.get(`/v2.0/ports/${port.id}`),
          404,
          'PortNotFound',
          `Port ${port.id} could not be found.`,
        );
      });

      it('project_id of another project from a non-admin; project_id and tenant_id differing', async () => {
        const project = newProjectId();
        const client = member(project);
        assertError(
          await client.post('/v2.0/networks', { network: { project_id: newProjectId() } }),
          400,
          'HTTPBadRequest',
          "Specifying 'project_id' other than the authenticated project in request is not allowed for the current user.",
        );
        assertError(
          await client.post('/v2.0/networks', { network: { project_id: project, tenant_id: newProjectId() } }),
          400,
          'HTTPBadRequest',
          "'project_id' and 'tenant_id' do not match",
        );
      });

      it('If-Match: stale (412), malformed (400), multiple (400), weak (ignored), right (applied)', async () => {
        const { client, network, subnet, port } = await setup();
        const rev = port.revision_number as number;
        const put = (ifMatch: string, name = 'x') =>
          client.put(`/v2.0/ports/${port.id}`, { port: { name } }, { 'if-match': ifMatch });
        assertError(
          await put(`revision_number=${rev + 5}`),
          412,
          'RevisionNumberConstraintFailed',
          `Constrained to ${rev + 5}, but current revision is ${rev}`,
        );
        assertError(
          await put('revision_number=abc'),
          400,
          'BadRequest',
          'Bad if-match request: Revision number etag must be in the format of revision_number=<int>.',
        );
        assertError(
          await put('"revision_number=1", "revision_number=2"'),
          400,
          'BadRequest',
          'Bad if-match request: Multiple revision_number etags are not supported..',
        );
        const weak = await put('W/"revision_number=999"', 'weak');
        assert.equal(weak.status, 200, weak.text);
        const current = weak.body.port.revision_number as number;
        const right = await put(`revision_number=${current}`, 'right');
        assert.equal(right.status, 200, right.text);
        assert.equal(right.body.port.name, 'right');
        const subnetPut = await client.put(
          `/v2.0/subnets/${subnet.id}`,
          { subnet: { name: 'x' } },
          { 'if-match': 'revision_number=999' },
        );
        assertError(
          subnetPut,
          412,
          'RevisionNumberConstraintFailed',
          `Constrained to 999, but current revision is ${subnet.revision_number}`,
        );
        const networkNow = (await client.get(`/v2.0/networks/${network.id}`)).body.network.revision_number;
        assertError(
          await client.put(
            `/v2.0/networks/${network.id}`,
            { network: { name: 'x' } },
            { 'if-match': 'revision_number=999' },
          ),
          412,
          'RevisionNumberConstraintFailed',
          `Constrained to 999, but current revision is ${networkNow}`,
        );
        const portNow = right.body.port.revision_number as number;
        const del = await client.request('DELETE', `/v2.0/ports/${port.id}`, undefined, {
          'if-match': 'revision_number=999',
        });
        assertError(
          del,
          412,
          'RevisionNumberConstraintFailed',
          `Constrained to 999, but current revision is ${portNow}`,
        );
        assert.equal((await client.get(`/v2.0/ports/${port.id}`)).status, 200, 'the port is still there');
      });

      it('over quota', async () => {
        const project = newProjectId();
        const client = member(project);
        const set = await api.admin.put(`/v2.0/quotas/${project}`, { quota: { port: 2, subnet: 1 } });
        assert.equal(set.status, 200, set.text);
        const { network } = await networkWithSubnet(client, '10.22.0.0/24');
        await createPort(client, network.id);
        const bulk = await client.post('/v2.0/ports', {
          ports: [{ network_id: network.id }, { network_id: network.id }],
        });
        assertError(bulk, 409, 'OverQuota', "Quota exceeded for resources: ['port'].");
        await createPort(client, network.id);
        assertError(
          await client.post('/v2.0/ports', { port: { network_id: network.id } }),
          409,
          'OverQuota',
          "Quota exceeded for resources: ['port'].",
        );
        const subnet = await client.post('/v2.0/subnets', {
          subnet: { network_id: network.id, cidr: '10.23.0.0/24', ip_version: 4 },
        });
        assertError(subnet, 409, 'OverQuota', "Quota exceeded for resources: ['subnet'].");
        const ports = (await client.get(`/v2.0/ports?network_id=${network.id}`)).body.ports as Item[];
        assert.equal(ports.filter((p) => !String(p.device_owner).startsWith('network:')).length, 2);
      });

      it('405 for methods a path does not have, without side effects', async () => {
        const { client, network } = await setup();
        const patch = await client.request('PATCH', `/v2.0/networks/${network.id}`, { network: { name: 'patched' } });
        assertError(patch, 405, 'HTTPMethodNotAllowed', METHOD_NOT_ALLOWED);
        assertError(
          await client.post(`/v2.0/networks/${network.id}`, { network: {} }),
          405,
          'HTTPMethodNotAllowed',
          METHOD_NOT_ALLOWED,
        );
        assert.equal((await client.request('HEAD', '/v2.0/networks')).status, 405);
        assert.equal((await client.get(`/v2.0/networks/${network.id}`)).body.network.name, 'net');
      });

      it('unknown paths are 404 HTTPNotFound', async () => {
        const { client, network } = await setup();
        assertError(await client.get('/v2.0/bogus'), 404, 'HTTPNotFound', 'The resource could not be found.');
        assertError(
          await client.get(`/v2.0/networks/${network.id}/foo`),
          404,
          'HTTPNotFound',
          'The resource could not be found.',
        );
        assertError(await client.get('/v2.0/networks.xml'), 404, 'HTTPNotFound', 'The resource could not be found.');
      });

      it('PUT and DELETE on a collection look up id None', async () => {
        const client = member();
        assertError(
          await client.put('/v2.0/networks', { network: { name: 'x' } }),
          404,
          'NetworkNotFound',
          'Network None could not be found.',
        );
        assertError(await client.delete('/v2.0/networks'), 404, 'NetworkNotFound', 'Network None could not be found.');
        assertError(
          await client.put('/v2.0/ports', { port: { name: 'x' } }),
          404,
          'PortNotFound',
          'Port None could not be found.',
        );
        assertError(await client.delete('/v2.0/subnets'), 404, 'SubnetNotFound', 'Subnet None could not be found.');
      });

      it('bodies on DELETE, bulk PUT, empty bulk POST', async () => {
        const { client, port } = await setup();
        const del = await client.request('DELETE', `/v2.0/ports/${port.id}`, '{}');
        assertError(del, 400, 'HTTPBadRequest', 'Request body is not supported in DELETE.');
        assertError(
          await client.put(`/v2.0/ports/${port.id}`, { ports: [{ name: 'x' }] }),
          400,
          'HTTPBadRequest',
          'Bulk operation not supported',
        );
        assertError(await client.post('/v2.0/ports', { ports: [] }), 400, 'HTTPBadRequest', 'Resources required');
      });
    });

    describe('failed writes leave nothing behind', () => {
      async function userPorts(client: ReturnType<typeof member>, networkId: string): Promise<Item[]> {
        const ports = (await client.get(`/v2.0/ports?network_id=${networkId}`)).body.ports as Item[];
        return ports.filter((p) => !String(p.device_owner).startsWith('network:'));
      }

      it('a bulk create with one invalid item creates none', async () => {
        const { client, network } = await setup();
        const r = await client.post('/v2.0/ports', {
          ports: [
            { network_id: network.id, fixed_ips: [] },
            { network_id: network.id, bogus: 1 },
          ],
        });
        assertError(r, 400, 'HTTPBadRequest', "Unrecognized attribute(s) 'bogus'");
        assert.equal((await userPorts(client, network.id)).length, 1);
      });

      it('a bulk create failing on a conflict creates none and keeps neither address nor MAC', async () => {
        const { client, network, subnet } = await setup();
        const r = await client.post('/v2.0/ports', {
          ports: [
            { network_id: network.id, fixed_ips: [{ ip_address: '10.20.0.77' }], mac_address: 'fa:16:3e:77:77:77' },
            { network_id: network.id, fixed_ips: [{ ip_address: '10.20.0.20' }] },
          ],
        });
        assertError(
          r,
          409,
          'IpAddressAlreadyAllocated',
          `IP address 10.20.0.20 already allocated in subnet ${subnet.id}`,
        );
        assert.equal((await userPorts(client, network.id)).length, 1);
        const again = await createPort(client, network.id, {
          fixed_ips: [{ ip_address: '10.20.0.77' }],
          mac_address: 'fa:16:3e:77:77:77',
        });
        assert.deepEqual(addresses(again), ['10.20.0.77']);
      });

      it('a port failing on an address conflict leaves no port and no MAC', async () => {
        const { client, network, subnet } = await setup();
        const r = await client.post('/v2.0/ports', {
          port: { network_id: network.id, fixed_ips: [{ ip_address: '10.20.0.20' }], mac_address: 'fa:16:3e:77:77:78' },
        });
        assertError(
          r,
          409,
          'IpAddressAlreadyAllocated',
          `IP address 10.20.0.20 already allocated in subnet ${subnet.id}`,
        );
        assert.equal((await userPorts(client, network.id)).length, 1);
        const macs = await client.get('/v2.0/ports?mac_address=fa:16:3e:77:77:78');
        assert.deepEqual(macs.body.ports, []);
        assert.equal(
          (await createPort(client, network.id, { fixed_ips: [], mac_address: 'fa:16:3e:77:77:78' })).mac_address,
          'fa:16:3e:77:77:78',
        );
      });

      it('a bulk subnet create with one overlapping subnet creates none', async () => {
        const { client, network } = await setup();
        const r = await client.post('/v2.0/subnets', {
          subnets: [
            { network_id: network.id, cidr: '10.82.0.0/24', ip_version: 4 },
            { network_id: network.id, cidr: '10.20.0.0/25', ip_version: 4 },
          ],
        });
        assertError(
          r,
          400,
          'InvalidInput',
          `Invalid input for operation: Requested subnet with cidr: 10.20.0.0/25 for network: ${network.id} overlaps with another subnet.`,
        );
        const subnets = (await client.get(`/v2.0/subnets?network_id=${network.id}`)).body.subnets as Item[];
        assert.deepEqual(
          subnets.map((s) => s.cidr),
          ['10.20.0.0/24'],
        );
        const shown = (await client.get(`/v2.0/networks/${network.id}`)).body.network;
        assert.equal(shown.subnets.length, 1);
        await createSubnet(client, network.id, { cidr: '10.82.0.0/24' });
      });

      it('an exhausted subnet leaves no half-made port', async () => {
        const client = member();
        const { network } = await networkWithSubnet(client, '10.24.0.0/30');
        await createPort(client, network.id);
        const r = await client.post('/v2.0/ports', {
          port: { network_id: network.id, mac_address: 'fa:16:3e:24:24:24' },
        });
        assertError(r, 409, 'IpAddressGenerationFailure', `No more IP addresses available on network ${network.id}.`);
        assert.equal((await userPorts(client, network.id)).length, 1);
      });
    });
  });
}
