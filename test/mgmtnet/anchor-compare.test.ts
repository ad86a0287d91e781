/**
 * The same spec applied to octonet and to the real Neutron Zed anchor
 * (`../shared/anchors/neutron-zed/start.sh`, noauth on 127.0.0.1:9797) produces the same Neutron
 * objects: per topology, every owned network, subnet, security group (with its rules), router and
 * port is read back from both and compared after normalisation (IDs replaced by the role of the
 * object they point to; timestamps, revisions, projects, MACs and allocated addresses dropped; the
 * attributes compared are the ones the operator sets or relies on). Both converge: the second apply
 * writes nothing on either; delete takes the same steps on both.
 *
 * The anchor is started if it is not answering (start.sh is idempotent, a warm start takes seconds)
 * and stopped afterwards only if this test started it. Where it cannot start (no Debian Neutron
 * packages, not root), every test is skipped with the reason.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ANCHOR_START, startAnchor, stopAnchor } from '../fixtures/anchor.js';
import { useApi } from '../fixtures/api.js';
import { NeutronClient, type NeutronObject } from '../../src/mgmtnet/neutron-client.js';
import { applySpec, deleteSpec } from '../../src/mgmtnet/reconcile.js';
import { makeSpec } from './fixtures.js';

const ANCHOR_URL = 'http://127.0.0.1:9797';

async function answering(): Promise<boolean> {
  try {
    return (await fetch(`${ANCHOR_URL}/v2.0/networks?limit=1`)).ok;
  } catch {
    return false;
  }
}

/** Starts the anchor if needed: `{started}` or `{skip: reason}`. */
async function ensureAnchor(): Promise<{ started: boolean } | { skip: string }> {
  if (await answering()) return { started: false };
  if (!existsSync(ANCHOR_START)) return { skip: `no anchor at ${ANCHOR_START}` };
  if (process.getuid?.() !== 0) return { skip: 'the anchor needs root (it runs PostgreSQL as the postgres user)' };
  try {
    startAnchor();
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '')
      .trim()
      .split('\n')
      .slice(-2)
      .join(' ');
    return { skip: `the Neutron Zed anchor did not start: ${stderr || (error as Error).message}` };
  }
  return (await answering()) ? { started: true } : { skip: 'the Neutron Zed anchor started but does not answer' };
}

const KEYS: Record<string, string[]> = {
  networks: [
    'name',
    'description',
    'admin_state_up',
    'mtu',
    'provider:network_type',
    'provider:physical_network',
    'provider:segmentation_id',
    'router:external',
    'shared',
    'port_security_enabled',
    'tags',
  ],
  subnets: [
    'name',
    'description',
    'network_id',
    'cidr',
    'ip_version',
    'gateway_ip',
    'enable_dhcp',
    'allocation_pools',
    'host_routes',
    'ipv6_address_mode',
    'ipv6_ra_mode',
    'dns_nameservers',
    'tags',
  ],
  'security-groups': ['name', 'description', 'stateful', 'tags', 'security_group_rules'],
  routers: ['name', 'description', 'admin_state_up', 'external_gateway_info', 'tags'],
  ports: [
    'name',
    'description',
    'network_id',
    'admin_state_up',
    'device_owner',
    'device_id',
    'security_groups',
    'binding:host_id',
    'port_security_enabled',
    'fixed_ips',
    'tags',
  ],
};

/** Everything one spec owns on one server, normalised for comparison. */
async function snapshot(client: NeutronClient, name: string): Promise<Record<string, unknown[]>> {
  const tag = `octonet-mgmt-net:${name}`;
  const all: Record<string, NeutronObject[]> = {};
  for (const collection of Object.keys(KEYS))
    all[collection] = await client.list(collection as 'networks', { tags: tag });
  const roleById = new Map<string, string>();
  for (const list of Object.values(all)) {
    for (const o of list)
      roleById.set(
        o.id,
        (o.tags ?? [])
          .filter((t: string) => !t.startsWith('octonet-mgmt-net:'))
          .sort()
          .join('+'),
      );
  }
  const ref = (id: unknown) => (typeof id === 'string' ? (roleById.get(id) ?? (id ? 'foreign' : '')) : id);
  const out: Record<string, unknown[]> = {};
  for (const [collection, list] of Object.entries(all)) {
    out[collection] = list
      .map((o) => {
        const view: Record<string, unknown> = {};
        for (const key of KEYS[collection]!) {
          let value = o[key];
          if (key === 'network_id' || key === 'device_id') value = ref(value);
          if (key === 'tags') value = [...(value as string[])].sort();
          // Tunnel IDs are allocated (randomly, on Neutron); a VLAN ID is the spec's.
          if (key === 'provider:segmentation_id' && o['provider:network_type'] === 'geneve') value = 'allocated';
          if (key === 'security_groups') value = (value as string[]).map(ref).sort();
          if (key === 'fixed_ips') value = (value as { subnet_id: string }[]).map((f) => ref(f.subnet_id)).sort();
          if (key === 'external_gateway_info' && value) {
            const g = value as {
              network_id: string;
              enable_snat: boolean;
              external_fixed_ips: { subnet_id: string; ip_address: string }[];
            };
            value = {
              network_id: ref(g.network_id),
              enable_snat: g.enable_snat,
              ips: g.external_fixed_ips.map((f) => `${ref(f.subnet_id)} ${f.ip_address}`).sort(),
            };
          }
          if (key === 'security_group_rules') {
            value = (value as NeutronObject[])
              .map((r) =>
                [
                  r.direction,
                  r.ethertype,
                  r.protocol,
                  r.port_range_min,
                  r.port_range_max,
                  r.remote_ip_prefix,
                  r.remote_group_id,
                ].join(' '),
              )
              .sort();
          }
          if (key === 'host_routes' || key === 'allocation_pools' || key === 'dns_nameservers') {
            value = (value as unknown[]).map((v) => JSON.stringify(v)).sort();
          }
          view[key] = value ?? null;
        }
        return view;
      })
      .sort((a, b) => JSON.stringify(a.tags).localeCompare(JSON.stringify(b.tags)));
  }
  return out;
}

const RUN = Math.random().toString(36).slice(2, 8);
const SPECS = [
  { label: 'per-node-ports', extra: {} },
  { label: 'link-router', extra: { topology: 'link-router', linkRouter: { cidr: '192.168.240.0/24' } } },
  {
    label: 'provider (VLAN)',
    extra: {
      topology: 'provider',
      network: { cidr: '10.99.0.0/24', mtu: 1500 },
      provider: { networkType: 'vlan', segmentationId: 100 + Math.floor(Math.random() * 100) },
    },
  },
  {
    label: 'link-router IPv6',
    extra: { topology: 'link-router', network: { cidr: 'fd00:24::/64' }, linkRouter: { cidr: 'fd00:240::/64' } },
  },
  {
    label: 'dual stack',
    extra: { network: { cidr: ['10.98.0.0/24', 'fd00:98::/64'] }, securityGroups: { ssh: true } },
  },
];

const slug = (label: string) => label.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** A topology's spec; node1 names the anchor's fake chassis, so binding:host_id is set and checked on both. */
function compareSpec(name: string, extra: Record<string, unknown> | undefined) {
  return makeSpec({ nodes: [{ name: 'node1', chassis: 'anchor-host-1' }, { name: 'node2' }], ...extra }, name);
}

/**
 * Deletes what an interrupted earlier run left in the anchor, which keeps its database across
 * restarts: its flat network would hold physnet1, which every topology here needs in turn.
 */
async function deleteLeftovers(zed: NeutronClient): Promise<void> {
  const names = new Set<string>();
  for (const network of await zed.list('networks')) {
    for (const tag of (network.tags as string[] | undefined) ?? []) {
      const name = /^octonet-mgmt-net:(cmp-.+)$/.exec(tag)?.[1];
      if (name !== undefined && !name.startsWith(`cmp-${RUN}-`)) names.add(name);
    }
  }
  for (const name of names) {
    const extra = SPECS.find((s) => name.endsWith(`-${slug(s.label)}`))?.extra;
    const gone = await deleteSpec(compareSpec(name, extra), zed);
    process.stderr.write(`anchor-compare: deleted ${gone.objects.length} objects an earlier run left (${name})\n`);
  }
}

describe('mgmt-net: octonet and the real Neutron Zed make the same objects', () => {
  const api = useApi('sqlite');
  let anchor: { started: boolean } | { skip: string } = { skip: 'not checked yet' };
  const applied: { name: string; spec: ReturnType<typeof makeSpec> }[] = [];

  before(async () => {
    anchor = await ensureAnchor();
    if ('skip' in anchor) process.stderr.write(`anchor-compare: skipped: ${anchor.skip}\n`);
    else await deleteLeftovers(NeutronClient.noauth(ANCHOR_URL));
  });

  after(async () => {
    if ('skip' in anchor) return;
    const client = NeutronClient.noauth(ANCHOR_URL);
    for (const { spec } of applied) await deleteSpec(spec, client).catch(() => undefined);
    if (anchor.started) stopAnchor();
  });

  for (const { label, extra } of SPECS) {
    it(`${label}: same objects, and both converge`, async (t) => {
      if ('skip' in anchor) return t.skip(anchor.skip);
      const name = `cmp-${RUN}-${slug(label)}`.slice(0, 63);
      const spec = compareSpec(name, extra);
      applied.push({ name, spec });
      const octonet = NeutronClient.noauth(api.url);
      const zed = NeutronClient.noauth(ANCHOR_URL);
      const mine = await applySpec(spec, octonet);
      const theirs = await applySpec(spec, zed);
      assert.equal(mine.error, undefined);
      assert.equal(theirs.error, undefined);
      assert.deepEqual(
        theirs.objects.map((o) => [o.kind, o.name, o.action]),
        mine.objects.map((o) => [o.kind, o.name, o.action]),
      );
      const a = await snapshot(octonet, name);
      const b = await snapshot(zed, name);
      for (const collection of Object.keys(KEYS))
        assert.deepEqual(a[collection], b[collection], `${collection} differ`);
      assert.ok(a.ports!.length >= 2 && a['security-groups']!.length === 2);
      for (const [client, first] of [
        [octonet, mine],
        [zed, theirs],
      ] as const) {
        client.resetCounts();
        const again = await applySpec(spec, client, { previous: first.status });
        assert.deepEqual(
          again.objects.filter((o) => o.action !== 'unchanged'),
          [],
        );
        assert.equal(again.calls.writes, 0);
      }
      // Delete on both (the flat physnet is free again for the next topology); same steps on both.
      const goneMine = await deleteSpec(spec, octonet);
      const goneTheirs = await deleteSpec(spec, zed);
      assert.deepEqual(
        goneTheirs.objects.map((o) => [o.kind, o.name, o.action]),
        goneMine.objects.map((o) => [o.kind, o.name, o.action]),
      );
      assert.ok(goneMine.objects.every((o) => o.action === 'deleted'));
    });
  }
});
