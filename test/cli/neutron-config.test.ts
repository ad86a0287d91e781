/**
 * `octonet serve --config-file neutron.conf --config-file ml2_conf.ini --config-dir DIR`, as a real
 * process, started from the files Kolla-Ansible renders for an ML2/OVN neutron-server (passwords
 * and addresses changed; the config dir overrides the database and auth as an operator's
 * `neutron.conf.d` would). It must answer the API where `bind_host`/`bind_port` say, write to the
 * database and OVN the files name, apply `policy.yaml` found beside them, list the options it
 * ignores once, and refuse an ML2/OVS configuration and Neutron's own database.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import pg from 'pg';
import { createTestDatabase } from '../fixtures/postgres.js';
import { startServeProcess, type ServeProcess } from '../fixtures/serve-process.js';

/** /etc/kolla/neutron-server/neutron.conf, as kolla-ansible renders it for ML2/OVN. */
const KOLLA_NEUTRON_CONF = `[DEFAULT]
debug = False
log_dir = /var/log/kolla/neutron
use_stderr = False
bind_host = 127.0.0.1
bind_port = 9696
api_paste_config = /etc/neutron/api-paste.ini
api_workers = 5
rpc_workers = 1
rpc_state_report_workers = 1
state_path = /var/lib/neutron/kolla
core_plugin = ml2
service_plugins = ovn-router,segments
dhcp_agents_per_network = 2
l3_ha = False
transport_url = rabbit://openstack:rabbitpw@192.0.2.10:5672//
ipam_driver = internal
dns_domain = openstacklocal.

[nova]
auth_url = http://192.0.2.10:5000
auth_type = password
project_domain_id = default
user_domain_id = default
region_name = RegionOne
project_name = service
username = nova
password = novapw
endpoint_type = internal
cafile =

[oslo_middleware]
enable_proxy_headers_parsing = True

[oslo_concurrency]
lock_path = $state_path/tmp

[agent]
root_helper = sudo neutron-rootwrap /etc/neutron/rootwrap.conf

[database]
connection = mysql+pymysql://neutron:dbpw@192.0.2.10:3306/neutron
connection_recycle_time = 10
max_pool_size = 1
max_retries = -1

[keystone_authtoken]
service_type = network
www_authenticate_uri = http://192.0.2.10:5000
auth_url = http://192.0.2.10:5000
auth_type = password
project_domain_id = default
user_domain_id = default
project_name = service
username = neutron
password = neutronpw
cafile =
region_name = RegionOne
memcache_security_strategy = ENCRYPT
memcache_secret_key = memcachekey
memcached_servers = 192.0.2.10:11211

[oslo_messaging_notifications]
transport_url = rabbit://openstack:rabbitpw@192.0.2.10:5672//
driver = noop

[oslo_messaging_rabbit]
heartbeat_in_pthread = false

[placement]
auth_type = password
auth_url = http://192.0.2.10:5000
username = placement
password = placementpw
user_domain_name = Default
project_name = service
project_domain_name = Default
endpoint_type = internal
region_name = RegionOne

[privsep]
helper_command = sudo neutron-rootwrap /etc/neutron/rootwrap.conf privsep-helper

[oslo_policy]
policy_file = policy.yaml
`;

/** /etc/kolla/neutron-server/ml2_conf.ini for ML2/OVN; the OVN remotes are filled in by the test. */
function kollaMl2Conf(nb: string, sb: string, mechanismDrivers = 'ovn'): string {
  return `[ml2]
type_drivers = flat,vlan,vxlan,geneve
tenant_network_types = geneve
mechanism_drivers = ${mechanismDrivers}
extension_drivers = port_security

[ml2_type_vlan]
network_vlan_ranges =

[ml2_type_flat]
flat_networks = physnet1

[ml2_type_vxlan]
vni_ranges = 1:1000

[ml2_type_geneve]
vni_ranges = 1001:2000
max_header_size = 38

[ovn]
ovn_nb_connection = ${nb}
ovn_sb_connection = ${sb}
ovn_metadata_enabled = true
enable_distributed_floating_ip = False
ovn_emit_need_to_frag = True
`;
}

describe('serve from Kolla-rendered Neutron config files', () => {
  const ovn = useOvnCentral();
  const dir = mkdtempSync(join(tmpdir(), 'octonet-neutron-conf-'));
  let database: { url: string; drop: () => Promise<void> };
  let server: ServeProcess;

  before(async () => {
    database = await createTestDatabase();
    writeFileSync(join(dir, 'neutron.conf'), KOLLA_NEUTRON_CONF);
    writeFileSync(join(dir, 'ml2_conf.ini'), kollaMl2Conf(ovn.nb, ovn.sb));
    writeFileSync(join(dir, 'policy.yaml'), '# routers are the operator\'s\n"create_router": "!"\n');
    mkdirSync(join(dir, 'neutron.conf.d'));
    // What the config dir overrides (later files win): octonet's database in Neutron's URL form, and
    // noauth on loopback instead of a Keystone this test does not run.
    writeFileSync(
      join(dir, 'neutron.conf.d', '10-database.conf'),
      `[database]\nconnection = ${database.url.replace(/^postgres(ql)?:/, 'postgresql+psycopg2:')}\n`,
    );
    writeFileSync(join(dir, 'neutron.conf.d', '20-auth.conf'), '[DEFAULT]\nauth_strategy = noauth\n');
    server = await startServeProcess('', {
      args: (port) => {
        writeFileSync(join(dir, 'neutron.conf.d', '30-port.conf'), `[DEFAULT]\nbind_port = ${port}\n`);
        return [
          '--config-file',
          join(dir, 'neutron.conf'),
          '--config-file',
          join(dir, 'ml2_conf.ini'),
          '--config-dir',
          join(dir, 'neutron.conf.d'),
        ];
      },
    });
  });

  after(async () => {
    await server?.stop();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the API on bind_host:bind_port and writes the database and OVN the files name', async () => {
    const created = await fetch(`${server.url}/v2.0/networks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ network: { name: 'from-kolla-conf' } }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const network = ((await created.json()) as { network: Record<string, unknown> }).network;
    assert.equal(network['provider:network_type'], 'geneve', '[ml2] tenant_network_types');
    const vni = network['provider:segmentation_id'] as number;
    assert.ok(vni >= 1001 && vni <= 2000, `VNI ${vni} from [ml2_type_geneve] vni_ranges`);
    await eventually(() =>
      assert.ok(
        ovn.nbRows('Logical_Switch').some((row) => row.name === `neutron-${String(network.id)}`),
        'the network is in the NB of [ovn] ovn_nb_connection',
      ),
    );
  });

  it('applies the policy.yaml [oslo_policy] policy_file names, found beside the config files', async () => {
    const r = await fetch(`${server.url}/v2.0/routers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ router: { name: 'r' } }),
    });
    assert.equal(r.status, 403);
    assert.match(await r.text(), /PolicyNotAuthorized/);
  });

  it('lists the options it ignores once, by name, and none it uses', () => {
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('Neutron options octonet ignores'));
    assert.equal(lines.length, 1, server.output());
    const { options } = JSON.parse(lines[0]!) as { options: string[] };
    for (const name of [
      'DEFAULT.transport_url',
      'DEFAULT.api_workers',
      'keystone_authtoken.memcached_servers',
      'ml2_type_vxlan.vni_ranges',
      'ovn.ovn_emit_need_to_frag',
      'placement.auth_url',
      'oslo_concurrency.lock_path',
    ])
      assert.ok(options.includes(name), `${name} is listed`);
    for (const name of ['DEFAULT.bind_port', 'database.connection', 'ml2.mechanism_drivers', 'ovn.ovn_nb_connection'])
      assert.ok(!options.includes(name), `${name} is used, not ignored`);
    assert.ok(!server.output().includes('neutronpw'), 'no password in the log');
    assert.match(server.output(), /type_drivers: octonet has no vxlan type driver/);
  });

  it('refuses mechanism_drivers = openvswitch with a clear message', async () => {
    const ovsDir = join(dir, 'ovs');
    mkdirSync(ovsDir);
    writeFileSync(join(ovsDir, 'neutron.conf'), KOLLA_NEUTRON_CONF);
    writeFileSync(join(ovsDir, 'ml2_conf.ini'), kollaMl2Conf(ovn.nb, ovn.sb, 'openvswitch,l2population'));
    await assert.rejects(
      startServeProcess('', {
        args: () => ['--config-file', join(ovsDir, 'neutron.conf'), '--config-file', join(ovsDir, 'ml2_conf.ini')],
      }),
      /octonet: \[ml2\] mechanism_drivers = openvswitch,l2population: octonet replaces ML2\/OVN only; it cannot drive openvswitch, l2population/,
    );
  });

  it("refuses Neutron's own database ([database] connection left as it was), writing nothing into it", async () => {
    const neutron = await createTestDatabase();
    const client = new pg.Client({ connectionString: neutron.url });
    await client.connect();
    try {
      await client.query('create table standardattributes (id bigint primary key)');
      const neutronDir = join(dir, 'neutron-db');
      mkdirSync(neutronDir);
      writeFileSync(join(neutronDir, 'neutron.conf'), KOLLA_NEUTRON_CONF);
      writeFileSync(join(neutronDir, 'policy.yaml'), '');
      writeFileSync(
        join(neutronDir, 'database.conf'),
        `[database]\nconnection = ${neutron.url.replace(/^postgres(ql)?:/, 'postgresql+psycopg2:')}\n` +
          '[DEFAULT]\nauth_strategy = noauth\n',
      );
      await assert.rejects(
        startServeProcess('', {
          args: () => [
            '--config-file',
            join(neutronDir, 'neutron.conf'),
            '--config-file',
            join(neutronDir, 'database.conf'),
          ],
        }),
        /this database is Neutron's .*octonet import --from/,
      );
      const { rows } = await client.query<{ tablename: string }>(
        "select tablename from pg_tables where schemaname = 'public' order by tablename",
      );
      assert.deepEqual(
        rows.map((r) => r.tablename),
        ['standardattributes'],
      );
    } finally {
      await client.end();
      await neutron.drop();
    }
  });
});
