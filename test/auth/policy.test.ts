/**
 * Neutron master's default policy as real Keystone tokens meet it: admin, member and reader of
 * project A and member of project B (and the `service` user) against every resource A owns, with
 * the answers Neutron gives (neutron/conf/policies/*.py, neutron/pecan_wsgi/hooks/policy_enforcement.py;
 * ../research/policy.md has the derivation):
 *
 * - a resource the caller may not read is a 404 on GET, PUT and DELETE (`<Res>NotFound`);
 * - a write on a resource the caller may read is a 403 `PolicyNotAuthorized` naming the whole
 *   rule tree; a create is never hidden, but a lookup Neutron makes first can 404 (a port on an
 *   invisible network);
 * - tags, quotas and agents-of-a-kind are Neutron's shim controllers: plain 403, no 404 masking;
 * - admin-only attributes (`provider:*`, `binding:*`) are dropped from what others read.
 *
 * One Keystone and one octonet (SQLite: policy does not depend on the store; test/api runs the
 * same rules on both) for the main suite; the resources are made once, by their owners, and each
 * case names the caller and the answer. Agents need an OVN central (a chassis to show), token
 * expiry a Keystone with short-lived tokens. A wrong or revoked token (401) and Keystone being
 * down (503, nothing written) are in keystone-api.test.ts.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { useKeystone, withToken, type TokenClient } from '../fixtures/keystone.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import type { Json } from '../fixtures/json.js';

type Caller = 'adminA' | 'memberA' | 'readerA' | 'memberB' | 'memberC' | 'service';
const CALLERS: readonly Caller[] = ['adminA', 'memberA', 'readerA', 'memberB', 'memberC', 'service'];

/** A status, or a status with the NeutronError type and (optionally) its exact message. */
type Answer = number | readonly [number, string, string?];

const deny = (rule: string): Answer => [403, 'PolicyNotAuthorized', `${rule} is disallowed by policy`];

interface Resources {
  netA: Json;
  subnetA: Json;
  portA: Json;
  sgA: Json;
  ruleA: Json;
  netProvider: Json;
  netShared: Json;
  subnetShared: Json;
  rbacShared: Json;
  netExternal: Json;
  subnetExternal: Json;
  rbacExternal: Json;
  portOfBOnShared: Json;
}

describe('policy with Keystone tokens', () => {
  const keystone = useKeystone();
  const api = useApi('sqlite', { config: () => keystone.octonetConfig() });
  const as = {} as Record<Caller, TokenClient>;
  const r = {} as Resources;

  async function created(client: TokenClient, path: string, key: string, body: object): Promise<Json> {
    const response = await client.post(path, { [key]: body });
    assert.equal(response.status, 201, `${path}: ${response.text}`);
    return response.body[key];
  }

  before(async () => {
    for (const caller of CALLERS) as[caller] = withToken(api.admin, await keystone.issueToken(keystone.users[caller]));
    const { memberA, adminA, memberB } = as;
    const B = keystone.projects.b.id;
    r.netA = await created(memberA, '/v2.0/networks', 'network', { name: 'net-a' });
    r.subnetA = await created(memberA, '/v2.0/subnets', 'subnet', {
      network_id: r.netA.id,
      cidr: '10.1.0.0/24',
      ip_version: 4,
    });
    r.portA = await created(memberA, '/v2.0/ports', 'port', { network_id: r.netA.id, name: 'port-a' });
    r.sgA = await created(memberA, '/v2.0/security-groups', 'security_group', { name: 'sg-a' });
    r.ruleA = await created(memberA, '/v2.0/security-group-rules', 'security_group_rule', {
      security_group_id: r.sgA.id,
      direction: 'ingress',
      protocol: 'tcp',
      port_range_min: 22,
      port_range_max: 22,
    });
    r.netProvider = await created(adminA, '/v2.0/networks', 'network', {
      name: 'net-provider',
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': 150,
    });
    r.netShared = await created(memberA, '/v2.0/networks', 'network', { name: 'net-shared-with-b' });
    r.subnetShared = await created(memberA, '/v2.0/subnets', 'subnet', {
      network_id: r.netShared.id,
      cidr: '10.2.0.0/24',
      ip_version: 4,
    });
    r.rbacShared = await created(memberA, '/v2.0/rbac-policies', 'rbac_policy', {
      object_type: 'network',
      object_id: r.netShared.id,
      action: 'access_as_shared',
      target_tenant: B,
    });
    r.netExternal = await created(memberA, '/v2.0/networks', 'network', { name: 'net-external-for-b' });
    r.subnetExternal = await created(memberA, '/v2.0/subnets', 'subnet', {
      network_id: r.netExternal.id,
      cidr: '10.3.0.0/24',
      ip_version: 4,
    });
    // Only an admin may offer a network as external, even to one project.
    r.rbacExternal = await created(adminA, '/v2.0/rbac-policies', 'rbac_policy', {
      object_type: 'network',
      object_id: r.netExternal.id,
      action: 'access_as_external',
      target_tenant: B,
    });
    r.portOfBOnShared = await created(memberB, '/v2.0/ports', 'port', { network_id: r.netShared.id, name: 'b-port' });
    assert.equal((await memberA.put(`/v2.0/networks/${r.netA.id}/tags/blue`)).status, 201);
  });

  async function check(caller: Caller, method: string, path: string, body: unknown, want: Answer): Promise<Json> {
    const client = as[caller];
    const response =
      method === 'GET'
        ? await client.get(path)
        : method === 'POST'
          ? await client.post(path, body)
          : method === 'PUT'
            ? await client.put(path, body)
            : await client.delete(path);
    const [status, type, message] = typeof want === 'number' ? [want] : want;
    const where = `${caller} ${method} ${path}`;
    assert.equal(response.status, status, `${where}: ${response.text}`);
    if (type) assert.equal(response.body?.NeutronError?.type, type, `${where}: ${response.text}`);
    if (message) assert.equal(response.body.NeutronError.message, message, where);
    return response.body;
  }

  /** One request per caller with that caller's expected answer. */
  function matrix(
    what: string,
    method: string,
    path: () => string,
    body: (() => unknown) | undefined,
    answers: Partial<Record<Caller, Answer>>,
  ): void {
    it(what, async () => {
      for (const [caller, want] of Object.entries(answers) as [Caller, Answer][]) {
        await check(caller, method, path(), body?.(), want);
      }
    });
  }

  describe('networks', () => {
    const netNotFound = () => [404, 'NetworkNotFound', `Network ${r.netA.id} could not be found.`] as const;
    matrix('show a private network', 'GET', () => `/v2.0/networks/${r.netA.id}`, undefined, {
      adminA: 200,
      memberA: 200,
      readerA: 200,
      service: 200,
      memberB: [404, 'NetworkNotFound'],
      memberC: [404, 'NetworkNotFound'],
    });
    matrix(
      'update a private network',
      'PUT',
      () => `/v2.0/networks/${r.netA.id}`,
      () => ({ network: { name: 'n' } }),
      {
        adminA: 200,
        memberA: 200,
        readerA: deny('rule:update_network'),
        service: deny('rule:update_network'),
        memberB: [404, 'NetworkNotFound'],
      },
    );
    matrix('delete a private network it may not delete', 'DELETE', () => `/v2.0/networks/${r.netA.id}`, undefined, {
      readerA: deny('rule:delete_network'),
      service: deny('rule:delete_network'),
      memberB: [404, 'NetworkNotFound'],
    });
    it('the 404 of an invisible network reads as if it did not exist', async () => {
      const [, , message] = netNotFound();
      const body = await check('memberB', 'GET', `/v2.0/networks/${r.netA.id}`, undefined, netNotFound());
      assert.deepEqual(body, { NeutronError: { type: 'NetworkNotFound', message, detail: '' } });
    });
    matrix(
      'create a network',
      'POST',
      () => '/v2.0/networks',
      () => ({ network: { name: 'made' } }),
      {
        adminA: 201,
        memberA: 201,
        memberB: 201,
        readerA: deny('rule:create_network'),
        service: deny('rule:create_network'),
      },
    );
    matrix(
      'create a provider network',
      'POST',
      () => '/v2.0/networks',
      () => ({ network: { name: 'p', 'provider:network_type': 'geneve' } }),
      {
        adminA: 201,
        memberA: deny('(rule:create_network and rule:create_network:provider:network_type)'),
        readerA: deny('(rule:create_network and rule:create_network:provider:network_type)'),
      },
    );
    matrix(
      'create a shared or external network',
      'POST',
      () => '/v2.0/networks',
      () => ({ network: { name: 's', shared: true, 'router:external': true } }),
      {
        adminA: 201,
        memberA: deny('((rule:create_network and rule:create_network:shared) and rule:create_network:router:external)'),
      },
    );
    matrix(
      'share its own network through the network (admin only)',
      'PUT',
      () => `/v2.0/networks/${r.netA.id}`,
      () => ({ network: { shared: false } }),
      {
        memberA: deny('(rule:update_network and rule:update_network:shared)'),
        readerA: deny('(rule:update_network and rule:update_network:shared)'),
      },
    );

    it('provider attributes are shown to admins only', async () => {
      const provider = ['provider:network_type', 'provider:physical_network', 'provider:segmentation_id'];
      const byAdmin = await check('adminA', 'GET', `/v2.0/networks/${r.netProvider.id}`, undefined, 200);
      assert.deepEqual(
        provider.map((k) => byAdmin.network[k]),
        ['vlan', 'physnet1', 150],
      );
      for (const caller of ['memberA', 'readerA'] as const) {
        const seen = await check(caller, 'GET', `/v2.0/networks/${r.netProvider.id}`, undefined, 200);
        assert.deepEqual(
          provider.filter((k) => k in seen.network),
          [],
          caller,
        );
        const listed = (await as[caller].get('/v2.0/networks')).body.networks;
        assert.ok(listed.length >= 2 && listed.every((n: object) => provider.every((k) => !(k in n))), caller);
      }
      // Asking for a hidden field does not reveal it.
      const fields = await as.memberA.get(
        `/v2.0/networks/${r.netProvider.id}?fields=provider:segmentation_id&fields=id`,
      );
      assert.deepEqual(fields.body, { network: { id: r.netProvider.id } });
    });

    it("project B sees A's network shared with it and the one offered to it as external, nothing else", async () => {
      const names = (await as.memberB.get('/v2.0/networks')).body.networks.map((n: Json) => n.name).sort();
      assert.ok(names.includes('net-shared-with-b') && names.includes('net-external-for-b'), names.join());
      assert.ok(!names.includes('net-a') && !names.includes('net-provider'), names.join());
      const shared = await check('memberB', 'GET', `/v2.0/networks/${r.netShared.id}`, undefined, 200);
      assert.equal(shared.network.shared, true);
      assert.equal(shared.network.project_id, keystone.projects.a.id);
      const external = await check('memberB', 'GET', `/v2.0/networks/${r.netExternal.id}`, undefined, 200);
      assert.deepEqual([external.network['router:external'], external.network.shared], [true, false]);
      // To its owner the network is shared with someone, not with everyone.
      const own = await check('memberA', 'GET', `/v2.0/networks/${r.netShared.id}`, undefined, 200);
      assert.equal(own.network.shared, false);
      // Shared with B and offered to B: not to C.
      const seenByC = (await as.memberC.get('/v2.0/networks')).body.networks.map((n: Json) => n.id);
      assert.ok(!seenByC.includes(r.netShared.id) && !seenByC.includes(r.netExternal.id));
      for (const net of [r.netShared, r.netExternal]) {
        await check('memberC', 'GET', `/v2.0/networks/${net.id}`, undefined, [404, 'NetworkNotFound']);
        await check('memberC', 'PUT', `/v2.0/networks/${net.id}`, { network: { name: 'x' } }, [404, 'NetworkNotFound']);
      }
      for (const net of [r.netShared, r.netExternal]) {
        await check(
          'memberB',
          'PUT',
          `/v2.0/networks/${net.id}`,
          { network: { name: 'x' } },
          deny('rule:update_network'),
        );
        await check('memberB', 'DELETE', `/v2.0/networks/${net.id}`, undefined, deny('rule:delete_network'));
      }
    });
  });

  describe('subnets', () => {
    matrix('show a subnet of a private network', 'GET', () => `/v2.0/subnets/${r.subnetA.id}`, undefined, {
      adminA: 200,
      memberA: 200,
      readerA: 200,
      service: 200,
      memberB: [404, 'SubnetNotFound'],
    });
    matrix(
      'update it',
      'PUT',
      () => `/v2.0/subnets/${r.subnetA.id}`,
      () => ({ subnet: { name: 's' } }),
      {
        adminA: 200,
        memberA: 200,
        readerA: deny('rule:update_subnet'),
        service: deny('rule:update_subnet'),
        memberB: [404, 'SubnetNotFound'],
      },
    );
    matrix('delete it', 'DELETE', () => `/v2.0/subnets/${r.subnetA.id}`, undefined, {
      readerA: deny('rule:delete_subnet'),
      memberB: [404, 'SubnetNotFound'],
    });
    matrix(
      'add a subnet to a network of A (the network owner decides, looked up as admin: no 404)',
      'POST',
      () => '/v2.0/subnets',
      () => ({ subnet: { network_id: r.netA.id, cidr: '10.9.0.0/24', ip_version: 4 } }),
      {
        readerA: deny('rule:create_subnet'),
        memberB: deny('rule:create_subnet'),
        service: deny('rule:create_subnet'),
        memberA: 201,
      },
    );
    it("B reads the shared network's subnet and may not change it; the external network's subnets stay hidden (Zed)", async () => {
      const shared = await check('memberB', 'GET', `/v2.0/subnets/${r.subnetShared.id}`, undefined, 200);
      assert.equal(shared.subnet['router:external'], false);
      await check('memberB', 'GET', `/v2.0/subnets/${r.subnetExternal.id}`, undefined, [404, 'SubnetNotFound']);
      const ids = (await as.memberB.get('/v2.0/subnets')).body.subnets.map((s: Json) => s.id);
      assert.deepEqual(ids, [r.subnetShared.id]);
      await check(
        'memberB',
        'PUT',
        `/v2.0/subnets/${r.subnetShared.id}`,
        { subnet: { name: 'x' } },
        deny('rule:update_subnet'),
      );
      await check('memberB', 'DELETE', `/v2.0/subnets/${r.subnetShared.id}`, undefined, deny('rule:delete_subnet'));
      await check('memberB', 'DELETE', `/v2.0/subnets/${r.subnetExternal.id}`, undefined, [404, 'SubnetNotFound']);
      await check(
        'memberB',
        'POST',
        '/v2.0/subnets',
        { subnet: { network_id: r.netShared.id, cidr: '10.8.0.0/24', ip_version: 4 } },
        deny('rule:create_subnet'),
      );
      assert.deepEqual((await as.memberC.get('/v2.0/subnets')).body.subnets, []);
      for (const subnet of [r.subnetShared, r.subnetExternal]) {
        await check('memberC', 'GET', `/v2.0/subnets/${subnet.id}`, undefined, [404, 'SubnetNotFound']);
      }
    });
  });

  describe('ports', () => {
    const binding = ['binding:host_id', 'binding:profile', 'binding:vif_type', 'binding:vif_details'];
    matrix('show a port on a private network', 'GET', () => `/v2.0/ports/${r.portA.id}`, undefined, {
      adminA: 200,
      memberA: 200,
      readerA: 200,
      service: 200,
      memberB: [404, 'PortNotFound'],
    });
    matrix(
      'update it',
      'PUT',
      () => `/v2.0/ports/${r.portA.id}`,
      () => ({ port: { name: 'p' } }),
      {
        adminA: 200,
        memberA: 200,
        service: 200,
        readerA: deny('rule:update_port'),
        memberB: [404, 'PortNotFound'],
      },
    );
    matrix('delete it', 'DELETE', () => `/v2.0/ports/${r.portA.id}`, undefined, {
      readerA: deny('rule:delete_port'),
      memberB: [404, 'PortNotFound'],
    });
    matrix(
      "create a port on A's private network (B's shared-network check looks it up as B: 404)",
      'POST',
      () => '/v2.0/ports',
      () => ({ port: { network_id: r.netA.id } }),
      {
        memberA: 201,
        adminA: 201,
        service: 201,
        readerA: deny('rule:create_port'),
        memberB: [404, 'NetworkNotFound'],
      },
    );
    matrix(
      'bind a port to a host (admin or service)',
      'POST',
      () => '/v2.0/ports',
      () => ({ port: { network_id: r.netA.id, 'binding:host_id': 'compute-1' } }),
      {
        adminA: 201,
        service: 201,
        memberA: deny('(rule:create_port and rule:create_port:binding:host_id)'),
      },
    );
    matrix(
      'set binding:profile (the service role only, not even admin)',
      'POST',
      () => '/v2.0/ports',
      () => ({ port: { network_id: r.netA.id, 'binding:profile': { local_link_information: [] } } }),
      {
        service: 201,
        adminA: deny('(rule:create_port and rule:create_port:binding:profile)'),
        memberA: deny('(rule:create_port and rule:create_port:binding:profile)'),
      },
    );
    it('binding:host_id, profile, vif_type and vif_details are shown to admin and service only', async () => {
      for (const caller of ['adminA', 'service'] as const) {
        const port = (await check(caller, 'GET', `/v2.0/ports/${r.portA.id}`, undefined, 200)).port;
        assert.deepEqual(
          binding.filter((k) => !(k in port)),
          [],
          caller,
        );
      }
      for (const caller of ['memberA', 'readerA'] as const) {
        const port = (await check(caller, 'GET', `/v2.0/ports/${r.portA.id}`, undefined, 200)).port;
        assert.deepEqual(
          binding.filter((k) => k in port),
          [],
          caller,
        );
        assert.equal(port['binding:vnic_type'], 'normal', caller);
      }
    });
    it('on the shared network B makes plain ports only; A, its owner, reads and deletes them but may not change them', async () => {
      const net = r.netShared.id;
      await check(
        'memberB',
        'POST',
        '/v2.0/ports',
        { port: { network_id: net, fixed_ips: [{ ip_address: '10.2.0.50' }] } },
        deny('(rule:create_port and (rule:create_port:fixed_ips and (rule:create_port:fixed_ips:ip_address)))'),
      );
      await check(
        'memberB',
        'POST',
        '/v2.0/ports',
        { port: { network_id: net, mac_address: 'fa:16:3e:00:00:01' } },
        deny('(rule:create_port and rule:create_port:mac_address)'),
      );
      await check(
        'memberB',
        'POST',
        '/v2.0/ports',
        { port: { network_id: net, device_owner: 'network:router_interface' } },
        deny('(rule:create_port and rule:create_port:device_owner)'),
      );
      await check(
        'memberB',
        'POST',
        '/v2.0/ports',
        { port: { network_id: net, fixed_ips: [{ subnet_id: r.subnetShared.id }], device_owner: 'compute:nova' } },
        201,
      );
      // An external network is for routers' gateways, not for B's own ports; C does not even see the shared one.
      await check(
        'memberB',
        'POST',
        '/v2.0/ports',
        { port: { network_id: r.netExternal.id } },
        deny('rule:create_port'),
      );
      await check('memberC', 'POST', '/v2.0/ports', { port: { network_id: net } }, [404, 'NetworkNotFound']);
      const port = r.portOfBOnShared.id;
      await check('memberA', 'GET', `/v2.0/ports/${port}`, undefined, 200);
      await check('memberA', 'PUT', `/v2.0/ports/${port}`, { port: { name: 'x' } }, deny('rule:update_port'));
      const listedByA = (await as.memberA.get(`/v2.0/ports?network_id=${net}`)).body.ports.map((p: Json) => p.id);
      assert.ok(listedByA.includes(port));
      // B's ports on A's network are not A's reader's to delete, but its member's.
      await check('readerA', 'DELETE', `/v2.0/ports/${port}`, undefined, deny('rule:delete_port'));
      await check('memberA', 'DELETE', `/v2.0/ports/${port}`, undefined, 204);
    });
  });

  describe('security groups and rules', () => {
    matrix('show a security group', 'GET', () => `/v2.0/security-groups/${r.sgA.id}`, undefined, {
      adminA: 200,
      memberA: 200,
      readerA: 200,
      memberB: [404, 'SecurityGroupNotFound'],
      // Neutron reads unscoped for a service token and its policy then hides the group (HTTPNotFound).
      service: 404,
    });
    matrix(
      'update it',
      'PUT',
      () => `/v2.0/security-groups/${r.sgA.id}`,
      () => ({ security_group: { description: 'd' } }),
      {
        adminA: 200,
        memberA: 200,
        readerA: deny('rule:update_security_group'),
        memberB: [404, 'SecurityGroupNotFound'],
      },
    );
    matrix('delete it', 'DELETE', () => `/v2.0/security-groups/${r.sgA.id}`, undefined, {
      readerA: deny('rule:delete_security_group'),
      memberB: [404, 'SecurityGroupNotFound'],
    });
    matrix(
      'create a security group',
      'POST',
      () => '/v2.0/security-groups',
      () => ({ security_group: { name: 'x' } }),
      {
        memberA: 201,
        memberB: 201,
        readerA: deny('rule:create_security_group'),
        service: deny('rule:create_security_group'),
      },
    );
    matrix('show a rule', 'GET', () => `/v2.0/security-group-rules/${r.ruleA.id}`, undefined, {
      adminA: 200,
      memberA: 200,
      readerA: 200,
      // Neutron reads rules as admin and its policy hides them: HTTPNotFound, not SecurityGroupRuleNotFound.
      memberB: [404, 'HTTPNotFound'],
    });
    matrix('delete it', 'DELETE', () => `/v2.0/security-group-rules/${r.ruleA.id}`, undefined, {
      readerA: deny('rule:delete_security_group_rule'),
      memberB: [404, 'HTTPNotFound'],
    });
    matrix(
      "add a rule to A's group (its owner is looked up as admin: 403, not 404)",
      'POST',
      () => '/v2.0/security-group-rules',
      () => ({
        security_group_rule: {
          security_group_id: r.sgA.id,
          direction: 'ingress',
          protocol: 'udp',
          port_range_min: 53,
          port_range_max: 53,
        },
      }),
      {
        readerA: deny('rule:create_security_group_rule'),
        memberB: deny('rule:create_security_group_rule'),
        memberA: 201,
      },
    );
  });

  describe('RBAC policies', () => {
    const policyNotFound = () => [404, 'RbacPolicyNotFound'] as const;
    matrix(
      'show the policy sharing A’s network with B',
      'GET',
      () => `/v2.0/rbac-policies/${r.rbacShared.id}`,
      undefined,
      {
        adminA: 200,
        memberA: 200,
        readerA: 200,
        memberB: policyNotFound(),
      },
    );
    matrix(
      'retarget it',
      'PUT',
      () => `/v2.0/rbac-policies/${r.rbacShared.id}`,
      () => ({ rbac_policy: { target_tenant: keystone.projects.b.id } }),
      {
        memberA: 200,
        readerA: deny('(rule:update_rbac_policy and rule:update_rbac_policy:target_tenant)'),
        memberB: policyNotFound(),
      },
    );
    matrix('delete it', 'DELETE', () => `/v2.0/rbac-policies/${r.rbacShared.id}`, undefined, {
      readerA: deny('rule:delete_rbac_policy'),
      memberB: policyNotFound(),
    });
    matrix(
      'share a network with everyone (admin only)',
      'POST',
      () => '/v2.0/rbac-policies',
      () => ({
        rbac_policy: { object_type: 'network', object_id: r.netA.id, action: 'access_as_shared', target_tenant: '*' },
      }),
      {
        memberA: deny(
          '((((rule:create_rbac_policy and rule:create_rbac_policy:object_type) and rule:create_rbac_policy:object_id) and rule:create_rbac_policy:target_tenant) and rule:create_rbac_policy:action)',
        ),
      },
    );
    matrix(
      "share A's network as B",
      'POST',
      () => '/v2.0/rbac-policies',
      () => ({
        rbac_policy: {
          object_type: 'network',
          object_id: r.netA.id,
          action: 'access_as_shared',
          target_tenant: keystone.projects.b.id,
        },
      }),
      {
        readerA: deny(
          '((((rule:create_rbac_policy and rule:create_rbac_policy:object_type) and rule:create_rbac_policy:object_id) and rule:create_rbac_policy:target_tenant) and rule:create_rbac_policy:action)',
        ),
        memberB: [404, 'NetworkNotFound'],
      },
    );
    it("policies are listed to their project's readers: A's two (one made by its admin), none to B", async () => {
      for (const caller of ['memberA', 'readerA', 'adminA'] as const) {
        const ids = (await as[caller].get('/v2.0/rbac-policies')).body.rbac_policies.map((p: Json) => p.id);
        assert.ok(ids.includes(r.rbacShared.id) && ids.includes(r.rbacExternal.id), caller);
      }
      assert.deepEqual((await as.memberB.get('/v2.0/rbac-policies')).body.rbac_policies, []);
      // The external policy is an admin's: A's member may not retarget it to everyone.
      await check(
        'memberA',
        'PUT',
        `/v2.0/rbac-policies/${r.rbacExternal.id}`,
        { rbac_policy: { target_tenant: '*' } },
        deny('(rule:update_rbac_policy and rule:update_rbac_policy:target_tenant)'),
      );
    });
  });

  describe('tags (a shim controller: plain 403, no hiding)', () => {
    matrix('read the tags of a private network', 'GET', () => `/v2.0/networks/${r.netA.id}/tags`, undefined, {
      memberA: 200,
      readerA: 200,
      memberB: deny('rule:get_network:tags'),
      service: deny('rule:get_network:tags'),
    });
    matrix('add a tag', 'PUT', () => `/v2.0/networks/${r.netA.id}/tags/green`, undefined, {
      memberA: 201,
      readerA: deny('rule:update_network:tags'),
      memberB: deny('rule:update_network:tags'),
    });
    matrix('remove all tags', 'DELETE', () => `/v2.0/networks/${r.netShared.id}/tags`, undefined, {
      readerA: deny('rule:delete_network:tags'),
      memberB: deny('rule:delete_network:tags'),
    });
    matrix(
      'read the tags of the network shared with B',
      'GET',
      () => `/v2.0/networks/${r.netShared.id}/tags`,
      undefined,
      {
        memberB: 200,
      },
    );
    matrix('tag a port', 'PUT', () => `/v2.0/ports/${r.portA.id}/tags/x`, undefined, {
      memberA: 201,
      readerA: deny('rule:update_port:tags'),
      memberB: deny('rule:update_port:tags'),
    });
    matrix('tag a security group', 'PUT', () => `/v2.0/security-groups/${r.sgA.id}/tags/x`, undefined, {
      memberA: 201,
      readerA: deny('rule:update_security_group:tags'),
      memberB: deny('rule:update_security_group:tags'),
    });
    it('the tags of a private network are hidden from those who see it through a list of their own', async () => {
      const byReader = await check('readerA', 'GET', `/v2.0/networks/${r.netA.id}`, undefined, 200);
      assert.ok(byReader.network.tags.includes('blue'));
      const byService = await check('service', 'GET', `/v2.0/networks/${r.netA.id}`, undefined, 200);
      assert.ok(!('tags' in byService.network), 'get_network:tags has no service clause');
    });
  });

  describe('quotas (a shim controller: plain 403)', () => {
    const A = () => keystone.projects.a.id;
    const B = () => keystone.projects.b.id;
    matrix('read its own quota', 'GET', () => `/v2.0/quotas/${A()}`, undefined, {
      adminA: 200,
      memberA: 200,
      readerA: 200,
    });
    matrix("read another project's quota", 'GET', () => `/v2.0/quotas/${A()}`, undefined, {
      memberB: deny('rule:get_quota'),
      service: deny('rule:get_quota'),
    });
    matrix("read another project's defaults", 'GET', () => `/v2.0/quotas/${B()}/default`, undefined, {
      adminA: 200,
      memberA: deny('rule:get_quota'),
    });
    matrix("read another project's usage", 'GET', () => `/v2.0/quotas/${B()}/details`, undefined, {
      adminA: 200,
      memberA: [
        403,
        'AdminRequired',
        'User does not have admin privileges: Only admin is authorized to access quotas for another project.',
      ],
    });
    matrix('read its own usage', 'GET', () => `/v2.0/quotas/${B()}/details`, undefined, { memberB: 200 });
    matrix('list the projects with limits', 'GET', () => '/v2.0/quotas', undefined, {
      adminA: 200,
      memberA: deny('rule:get_quota'),
      readerA: deny('rule:get_quota'),
    });
    matrix(
      'set a limit',
      'PUT',
      () => `/v2.0/quotas/${A()}`,
      () => ({ quota: { network: 50 } }),
      {
        adminA: 200,
        memberA: deny('rule:update_quota'),
        readerA: deny('rule:update_quota'),
        memberB: deny('rule:update_quota'),
        service: deny('rule:update_quota'),
      },
    );
    matrix('reset the limits', 'DELETE', () => `/v2.0/quotas/${A()}`, undefined, {
      memberA: deny('rule:delete_quota'),
      memberB: deny('rule:delete_quota'),
      adminA: 204,
    });
  });

  describe('network IP availability (admin and service)', () => {
    matrix('show one network', 'GET', () => `/v2.0/network-ip-availabilities/${r.netA.id}`, undefined, {
      adminA: 200,
      service: 200,
      // Neutron finds the network's figures (its query is not scoped) and its policy hides them.
      memberA: [404, 'HTTPNotFound'],
      readerA: [404, 'HTTPNotFound'],
      memberB: [404, 'HTTPNotFound'],
    });
    it('a list is empty for members and readers', async () => {
      for (const caller of ['memberA', 'readerA', 'memberB'] as const) {
        const body = await check(caller, 'GET', '/v2.0/network-ip-availabilities', undefined, 200);
        assert.deepEqual(body.network_ip_availabilities, [], caller);
      }
      const byService = await check('service', 'GET', '/v2.0/network-ip-availabilities', undefined, 200);
      assert.ok(byService.network_ip_availabilities.some((n: Json) => n.network_id === r.netA.id));
    });
  });
});

describe('policy with Keystone tokens: agents (OVN chassis) and availability zones', () => {
  const keystone = useKeystone();
  const ovn = useOvnCentral();
  const api = useApi('sqlite', {
    config: () => ({ ...keystone.octonetConfig(), ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }),
  });
  const as = {} as Record<Caller, TokenClient>;
  before(async () => {
    for (const caller of CALLERS) as[caller] = withToken(api.admin, await keystone.issueToken(keystone.users[caller]));
    ovn.addChassis('gateway1', '192.0.2.12', {
      'ovn-bridge-mappings': 'physnet1:br-ex',
      'ovn-cms-options': 'enable-chassis-as-gw,availability-zones=az1',
    });
    await eventually(async () => assert.equal((await as.adminA.get('/v2.0/agents')).body.agents.length, 1));
  });

  it('only admins see agents: others list none and find none to show, update or delete', async () => {
    const [agent] = (await as.adminA.get('/v2.0/agents')).body.agents;
    assert.equal(agent.id, 'gateway1');
    const notFound = [404, 'AgentNotFound', `Agent ${agent.id} could not be found.`];
    for (const caller of ['memberA', 'readerA', 'memberB', 'service'] as const) {
      const listed = await as[caller].get('/v2.0/agents');
      assert.deepEqual([listed.status, listed.body], [200, { agents: [] }], caller);
      for (const [method, response] of [
        ['GET', await as[caller].get(`/v2.0/agents/${agent.id}`)],
        ['PUT', await as[caller].put(`/v2.0/agents/${agent.id}`, { agent: { description: 'mine' } })],
        ['DELETE', await as[caller].delete(`/v2.0/agents/${agent.id}`)],
      ] as const) {
        assert.deepEqual(
          [response.status, response.body?.NeutronError?.type, response.body?.NeutronError?.message],
          notFound,
          `${caller} ${method}`,
        );
      }
    }
    const updated = await as.adminA.put(`/v2.0/agents/${agent.id}`, { agent: { description: 'gw' } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await as.adminA.get(`/v2.0/agents/${agent.id}`)).body.agent.description, 'gw');
  });

  it('availability zones are for any reader (a bare service token has no reader role)', async () => {
    for (const caller of ['adminA', 'memberA', 'readerA', 'memberB', 'service'] as const) {
      const r = await as[caller].get('/v2.0/availability_zones');
      assert.equal(r.status, 200, `${caller}: ${r.text}`);
      assert.ok(Array.isArray(r.body.availability_zones));
    }
  });
});

describe('policy with Keystone tokens: token lifetime', () => {
  // Tokens that live five seconds; octonet caches a token no longer than Keystone says it lives.
  const keystone = useKeystone({ tokenExpiration: 5 });
  const api = useApi('sqlite', { config: () => keystone.octonetConfig() });

  it('an expired token is refused (401) even though octonet validated it before, and writes nothing', async () => {
    // A token octonet accepted (should the machine be so slow that one expires before its first
    // use, the next is tried).
    const { token, client } = await eventually(async () => {
      const fresh = await keystone.issueToken(keystone.users.memberA);
      const c = withToken(api.admin, fresh);
      assert.equal((await c.get('/v2.0/networks')).status, 200);
      return { token: fresh, client: c };
    }, 60_000);
    // Wait for Keystone itself to call the token expired (a state, not a duration).
    await eventually(async () => {
      // Asked with a fresh token each time: every token here is short-lived.
      const admin = await keystone.issueToken(keystone.users.cloudAdmin);
      const r = await fetch(`${keystone.url}/auth/tokens`, {
        headers: { 'x-auth-token': admin, 'x-subject-token': token },
      });
      assert.equal(r.status, 404);
    }, 30_000);
    const refused = await client.post('/v2.0/networks', { network: { name: 'too-late' } });
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.headers.get('www-authenticate'), `Keystone uri="${keystone.url}"`);
    const fresh = withToken(api.admin, await keystone.issueToken(keystone.users.adminA));
    assert.deepEqual((await fresh.get('/v2.0/networks?name=too-late')).body.networks, []);
  });
});
