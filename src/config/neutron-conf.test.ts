import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.js';
import { databaseUrlFromSqlAlchemy, mapNeutronConfig } from './neutron-conf.js';
import { loadOsloConfig } from './oslo-ini.js';

const dir = mkdtempSync(join(tmpdir(), 'neutron-conf-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function mapped(...texts: string[]) {
  const files = texts.map((text) => {
    const path = join(dir, `f${n++}.conf`);
    writeFileSync(path, text);
    return path;
  });
  return mapNeutronConfig(loadOsloConfig({ files }));
}

const NEUTRON_CONF = `[DEFAULT]
debug = False
bind_host = 192.0.2.10
bind_port = 9696
auth_strategy = keystone
core_plugin = ml2
service_plugins = qos,ovn-router,segments
transport_url = rabbit://openstack:secret@192.0.2.1:5672//
api_workers = 4
dns_domain = cloud.example.
global_physnet_mtu = 9000

[database]
connection = postgresql+psycopg2://neutron:pw@db:5432/neutron
max_retries = -1

[keystone_authtoken]
www_authenticate_uri = http://192.0.2.1:5000
auth_url = http://192.0.2.1:5000
auth_type = password
project_domain_id = default
user_domain_id = default
project_name = service
username = neutron
password = s3cret
memcached_servers = 192.0.2.1:11211

[nova]
auth_url = http://192.0.2.1:5000/v3
auth_type = password
project_domain_name = Default
user_domain_name = Default
region_name = RegionOne
project_name = service
username = nova
password = novapw
endpoint_type = internal

[quotas]
quota_port = 1000
quota_router = -1
quota_driver = neutron.db.quota.driver_nolock.DbQuotaNoLockDriver
`;

const ML2_CONF = `[ml2]
type_drivers = flat,vlan,vxlan,geneve
tenant_network_types = geneve
mechanism_drivers = ovn
extension_drivers = port_security,qos

[ml2_type_vlan]
network_vlan_ranges = physnet1:100:199,physnet2

[ml2_type_flat]
flat_networks = physnet1

[ml2_type_geneve]
vni_ranges = 1:1000
max_header_size = 38

[ovn]
ovn_nb_connection = tcp:192.0.2.1:6641,tcp:192.0.2.2:6641
ovn_sb_connection = tcp:192.0.2.1:6642
ovn_metadata_enabled = True
enable_distributed_floating_ip = False
ovn_l3_scheduler = leastloaded
ovn_emit_need_to_frag = True
`;

describe('Neutron config mapping', () => {
  it('maps what octonet implements onto its keys', () => {
    const { values } = mapped(NEUTRON_CONF, ML2_CONF);
    assert.deepEqual(values, {
      listen: '192.0.2.10:9696',
      auth: 'keystone',
      network: {
        global_physnet_mtu: 9000,
        dns_domain: 'cloud.example.',
        tenant_network_types: ['geneve'],
        geneve_vni_ranges: ['1:1000'],
        max_header_size: 38,
        network_vlan_ranges: ['physnet1:100:199', 'physnet2'],
        flat_networks: ['physnet1'],
      },
      database: 'postgresql://neutron:pw@db:5432/neutron',
      keystone: {
        url: 'http://192.0.2.1:5000/v3',
        www_authenticate_uri: 'http://192.0.2.1:5000',
        user: 'neutron',
        password: 's3cret',
        project: 'service',
        user_domain: 'default',
        project_domain: 'default',
      },
      nova: {
        auth_url: 'http://192.0.2.1:5000/v3',
        username: 'nova',
        password: 'novapw',
        project_name: 'service',
        user_domain_name: 'Default',
        project_domain_name: 'Default',
        region_name: 'RegionOne',
        endpoint_type: 'internal',
      },
      ovn: {
        nb_connection: 'tcp:192.0.2.1:6641,tcp:192.0.2.2:6641',
        sb_connection: 'tcp:192.0.2.1:6642',
        metadata_enabled: true,
        enable_distributed_floating_ip: false,
      },
      quotas: { port: 1000, router: -1 },
    });
  });

  it('names every option it does not use, once, as section.option', () => {
    const { ignored, warnings } = mapped(NEUTRON_CONF, ML2_CONF);
    assert.deepEqual(ignored, [
      'DEFAULT.api_workers',
      'DEFAULT.transport_url',
      'database.max_retries',
      'keystone_authtoken.memcached_servers',
      'ml2.extension_drivers',
      'ovn.ovn_emit_need_to_frag',
      'quotas.quota_driver',
    ]);
    assert.ok(warnings.some((w) => /service_plugins: octonet does not provide qos/.test(w)));
    assert.ok(warnings.some((w) => /type_drivers: octonet has no vxlan type driver/.test(w)));
  });

  it('reads an OpenStack-Helm render (values.yaml conf.neutron through oslo-config rendering)', () => {
    // OpenStack-Helm writes every option it knows, [DEFAULT] included, in the generator's style.
    const osh = mapped(
      [
        '[DEFAULT]',
        'allow_overlapping_ips = true',
        'api_workers = 1',
        'bind_port = 9696',
        'core_plugin = ml2',
        'default_availability_zones = nova',
        'interface_driver = openvswitch',
        'service_plugins = router',
        '[database]',
        'connection = postgresql://neutron:password@postgresql.openstack.svc.cluster.local:5432/neutron',
        '[keystone_authtoken]',
        'auth_type = password',
        'auth_url = http://keystone-api.openstack.svc.cluster.local:5000/v3',
        'auth_version = v3',
        'memcache_security_strategy = ENCRYPT',
        'password = password',
        'project_domain_id = default',
        'project_name = service',
        'service_token_roles_required = true',
        'user_domain_id = default',
        'username = neutron',
        '[oslo_concurrency]',
        'lock_path = /var/lib/neutron/tmp',
      ].join('\n'),
      '[ml2]\nmechanism_drivers = ovn\ntype_drivers = flat,vlan,geneve\ntenant_network_types = geneve\n' +
        '[ml2_type_flat]\nflat_networks = public\n[ovn]\novn_nb_connection = tcp:ovn-ovsdb-nb.openstack.svc.cluster.local:6641\n' +
        'ovn_sb_connection = tcp:ovn-ovsdb-sb.openstack.svc.cluster.local:6642\n',
    );
    assert.equal(osh.values.listen, '0.0.0.0:9696');
    assert.equal(
      (osh.values.keystone as { url: string }).url,
      'http://keystone-api.openstack.svc.cluster.local:5000/v3',
    );
    assert.deepEqual(osh.warnings, [], 'router is served; geneve, vlan and flat are octonet type drivers');
    assert.deepEqual(osh.ignored, [
      'DEFAULT.allow_overlapping_ips',
      'DEFAULT.api_workers',
      'DEFAULT.default_availability_zones',
      'DEFAULT.interface_driver',
      'keystone_authtoken.auth_version',
      'keystone_authtoken.memcache_security_strategy',
      'keystone_authtoken.service_token_roles_required',
      'oslo_concurrency.lock_path',
    ]);
  });

  it('refuses any mechanism driver but ovn, and a core plugin other than ML2', () => {
    assert.throws(
      () => mapped('[ml2]\nmechanism_drivers = openvswitch,l2population\n'),
      /\[ml2\] mechanism_drivers = openvswitch,l2population: octonet replaces ML2\/OVN only; it cannot drive openvswitch, l2population/,
    );
    assert.throws(() => mapped('[ml2]\nmechanism_drivers = ovn,sriovnicswitch\n'), /cannot drive sriovnicswitch/);
    assert.throws(() => mapped('[DEFAULT]\ncore_plugin = vmware_nsx\n'), /core_plugin = vmware_nsx/);
    assert.throws(() => mapped('[ml2]\ntenant_network_types = vxlan\n'), /tenant networks geneve or vlan, not vxlan/);
  });

  it('reads Neutron database URLs, MySQL in every driver form', () => {
    assert.equal(databaseUrlFromSqlAlchemy('postgresql://u:p@h/db'), 'postgresql://u:p@h/db');
    assert.equal(databaseUrlFromSqlAlchemy('postgresql+psycopg2://u:p@h/db'), 'postgresql://u:p@h/db');
    assert.equal(
      databaseUrlFromSqlAlchemy('sqlite:////var/lib/neutron/neutron.db'),
      'sqlite:/var/lib/neutron/neutron.db',
    );
    assert.equal(databaseUrlFromSqlAlchemy('sqlite:///neutron.db'), 'sqlite:neutron.db');
    assert.throws(() => databaseUrlFromSqlAlchemy('sqlite://'), /in-memory/);
    assert.equal(
      databaseUrlFromSqlAlchemy('mysql+pymysql://n:p@db/neutron?charset=utf8'),
      'mysql://n:p@db/neutron?charset=utf8',
    );
    assert.equal(databaseUrlFromSqlAlchemy('mysql+mysqldb://n:p@db:3306/neutron'), 'mysql://n:p@db:3306/neutron');
    assert.equal(databaseUrlFromSqlAlchemy('mysql://n:p@db/neutron'), 'mysql://n:p@db/neutron');
    assert.throws(() => databaseUrlFromSqlAlchemy('oracle://x'), /unsupported database URL scheme "oracle"/);
  });

  it('brackets an IPv6 bind_host and uses Neutron’s defaults for the half not set', () => {
    assert.equal(mapped('[DEFAULT]\nbind_host = 2001:db8::1\n').values.listen, '[2001:db8::1]:9696');
    assert.equal(mapped('[DEFAULT]\nbind_port = 19696\n').values.listen, '0.0.0.0:19696');
  });

  it('takes the later file’s value and interpolated values', () => {
    const { values } = mapped(
      '[DEFAULT]\nbind_port = 1111\nstate_path = /srv/n\n[database]\nconnection = sqlite:///$state_path/neutron.db\n',
      '[DEFAULT]\nbind_port = 2222\n',
    );
    assert.equal(values.listen, '0.0.0.0:2222');
    assert.equal(values.database, 'sqlite:/srv/n/neutron.db');
  });

  it('finds policy.yaml beside the files, and refuses a named policy file that is missing', () => {
    writeFileSync(join(dir, 'policy.yaml'), '{}\n');
    assert.equal(mapped('[DEFAULT]\n').values.policy_file, join(dir, 'policy.yaml'));
    assert.throws(() => mapped('[oslo_policy]\npolicy_file = other.yaml\n'), /policy_file = other.yaml: not found/);
  });

  it('lays the Neutron values over the YAML and under the flags, saying which YAML keys lost', () => {
    const yaml = join(dir, 'octonet.yaml');
    writeFileSync(yaml, 'listen: 127.0.0.1:1\nnetwork:\n  dns_domain: yaml.example.\n  base_mac: fa:16:3e:11:00:00\n');
    const lost: string[] = [];
    const config = loadConfig({
      file: yaml,
      env: {},
      neutron: mapped('[DEFAULT]\nbind_host = 127.0.0.1\nbind_port = 2\ndns_domain = ini.example.\n').values,
      onYamlOverridden: (key) => lost.push(key),
      overrides: { log_level: 'warn' },
    });
    assert.equal(config.listen, '127.0.0.1:2');
    assert.equal(config.network.dns_domain, 'ini.example.');
    assert.equal(config.network.base_mac, 'fa:16:3e:11:00:00', 'a YAML key the files do not set stays');
    assert.deepEqual(lost, ['listen', 'network.dns_domain']);
    const flagged = loadConfig({ env: {}, neutron: { listen: '127.0.0.1:2' }, overrides: { listen: '127.0.0.1:3' } });
    assert.equal(flagged.listen, '127.0.0.1:3');
  });

  it('accepts keystone with a password from the files instead of a password file', () => {
    const { values } = mapped(NEUTRON_CONF);
    const config = loadConfig({ env: {}, neutron: values });
    assert.equal(config.auth, 'keystone');
    assert.equal(config.keystone.password, 's3cret');
    const yaml = join(dir, 'with-password.yaml');
    writeFileSync(yaml, 'keystone:\n  password: inline\n');
    assert.throws(() => loadConfig({ file: yaml, env: {} }), /keystone\.password: give the password in a file/);
  });
});
