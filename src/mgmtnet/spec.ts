/**
 * The Octavia management-network spec: one schema for the YAML file the CLI reads and for the
 * Kubernetes custom resource (`apiVersion: octonet.dev/v1`, `kind: OctaviaManagementNetwork`).
 *
 * This module owns the shape, the documented defaults and every check that needs nothing but the
 * spec itself (CIDRs, overlaps, MTU against the tunnel overhead, node names). Checks that need the
 * cloud (does the project exist, is the chassis known) live in `preflight.ts`, which runs before
 * the first write. Both throw `SpecError`, whose message starts with the path of the bad field.
 *
 * Defaults (a minimal spec names a topology, a CIDR and the nodes; everything else is here):
 * | field | default | why |
 * |---|---|---|
 * | `spec.topology` | `per-node-ports` | YAOOK/Kolla's model: works on any overlay |
 * | `spec.project` | the credentials' own project (noauth: the server's default project) | |
 * | `spec.adopt` | `false` | an untagged object with our name is reported, never taken over silently |
 * | `spec.network.name` / `subnetName` | `lb-mgmt-net` / `lb-mgmt-subnet` (`-v6` for the 2nd family) | devstack's names |
 * | `spec.network.mtu` | unset: Neutron picks the largest the segment allows | |
 * | `spec.network.underlayMtu` / `underlayIpVersion` | 1500 / 4 | the physical network; geneve costs 58 bytes of it over IPv4 (78 over IPv6), so 1442 is the largest tenant MTU, as Neutron computes it |
 * | `spec.provider` | `{physicalNetwork: physnet1, networkType: flat}` | provider and link-router topologies |
 * | `spec.linkRouter` | names `octavia-provider-net` / `octavia-provider-subnet` / `octavia-link-router`, gateway = first address of its CIDR | OSP's names |
 * | `spec.nodeInterface` | `o-hm0` | the name every tool uses |
 * | `spec.addressing.mode` | `static` | no DHCP client on the controller, no default route |
 * | `spec.securityGroups` | `lb-mgmt-sec-grp` (TCP 9443, ICMP), `lb-health-mgr-sec-grp` (UDP 5555, ICMP), SSH off | |
 * | `spec.heartbeatKey` | generated once and kept in a file next to the spec (CLI) or a Secret (Kubernetes) | never a fixed value |
 */
import ipaddr from 'ipaddr.js';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { cidrContains, cidrFamily, cidrsOverlap, firstHost, networkAddress } from './cidr.js';

/** A spec that cannot be applied. `field` is the dotted path; the message starts with it. */
export class SpecError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'SpecError';
  }
}

const API_VERSION = 'octonet.dev/v1';
const KIND = 'OctaviaManagementNetwork';
const TOPOLOGIES = ['per-node-ports', 'link-router', 'provider'] as const;

/**
 * Bytes geneve takes from the underlay MTU, as Neutron's geneve type driver counts them:
 * `max_header_size` (38 with OVN's options) plus the outer IP header (20 for IPv4, 40 for IPv6).
 */
const GENEVE_HEADER = 38;
function geneveOverhead(underlayIpVersion: 4 | 6): number {
  return GENEVE_HEADER + (underlayIpVersion === 4 ? 20 : 40);
}

const dnsLabel = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a DNS label: lower-case letters, digits and "-"');

const nodeSchema = z.strictObject({
  /** The controller node's name (Kubernetes node name, or any name in standalone mode). */
  name: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9][-A-Za-z0-9_.]*$/, 'letters, digits, "-", "_" and "." only'),
  /** OVN chassis name (`binding:host_id`). Unset: the node agent reads it from the node's OVS. */
  chassis: z.string().min(1).optional(),
  /** Pin the node's address(es) on the management network (one per family). */
  fixedIps: z.array(z.string()).optional(),
  labels: z.record(z.string(), z.string()).optional(),
});

const providerSchema = z
  .strictObject({
    physicalNetwork: z.string().min(1).default('physnet1'),
    networkType: z.enum(['flat', 'vlan']).default('flat'),
    segmentationId: z.number().int().min(1).max(4094).optional(),
  })
  .prefault({});

/** Exported for the Kubernetes CRD, whose openAPIV3Schema is generated from it (src/mgmtnet/kube/crds.ts). */
export const specBodySchema = z.strictObject({
  topology: z.enum(TOPOLOGIES).default('per-node-ports'),
  project: z.string().min(1).optional(),
  adopt: z.boolean().default(false),
  network: z.strictObject({
    name: z.string().min(1).default('lb-mgmt-net'),
    subnetName: z.string().min(1).default('lb-mgmt-subnet'),
    /** One CIDR, or a list of one IPv4 and/or one IPv6 CIDR (dual stack). */
    cidr: z.union([z.string(), z.array(z.string()).min(1).max(2)]),
    mtu: z.number().int().min(68).optional(),
    underlayMtu: z.number().int().min(576).max(65535).default(1500),
    /** IP version of the tunnel underlay (the outer header geneve adds). */
    underlayIpVersion: z.union([z.literal(4), z.literal(6)]).default(4),
  }),
  provider: providerSchema,
  linkRouter: z
    .strictObject({
      networkName: z.string().min(1).default('octavia-provider-net'),
      subnetName: z.string().min(1).default('octavia-provider-subnet'),
      routerName: z.string().min(1).default('octavia-link-router'),
      routerPortName: z.string().min(1).default('lb-mgmt-router-port'),
      cidr: z.string().optional(),
      /** The router's address on the provider subnet; default: the first host address. */
      gatewayIp: z.string().optional(),
    })
    .prefault({}),
  nodes: z.array(nodeSchema).optional(),
  /** Kubernetes only: the operator turns it into `nodes` before calling the reconciler. */
  nodeSelector: z.record(z.string(), z.string()).optional(),
  nodeInterface: z
    .string()
    .min(1)
    .max(15, 'a Linux interface name has at most 15 characters')
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, "-", "_" and "." only')
    .default('o-hm0'),
  addressing: z.strictObject({ mode: z.enum(['static']).default('static') }).prefault({}),
  securityGroups: z
    .strictObject({
      amphoraName: z.string().min(1).default('lb-mgmt-sec-grp'),
      healthManagerName: z.string().min(1).default('lb-health-mgr-sec-grp'),
      amphoraAgentPort: z.number().int().min(1).max(65535).default(9443),
      healthManagerPort: z.number().int().min(1).max(65535).default(5555),
      ssh: z.boolean().default(false),
      icmp: z.boolean().default(true),
    })
    .prefault({}),
  heartbeatKey: z
    .strictObject({
      /** CLI: where the generated key is kept (default: `<spec file>.heartbeat-key`). */
      file: z.string().optional(),
      /** Kubernetes: the Secret holding the key (created by the operator when missing). */
      secretName: z.string().optional(),
      secretKey: z.string().default('heartbeat_key'),
    })
    .prefault({}),
});

const resourceSchema = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(KIND),
  metadata: z.looseObject({
    name: dnsLabel,
    namespace: z.string().optional(),
    generation: z.number().int().optional(),
    uid: z.string().optional(),
  }),
  spec: specBodySchema,
  status: z.unknown().optional(),
});

type RawResource = z.output<typeof resourceSchema>;
type RawSpecBody = RawResource['spec'];

export interface MgmtNetNode {
  readonly name: string;
  readonly chassis?: string;
  readonly fixedIps?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
}

/** The validated resource with defaults filled in; `spec.network.cidrs` replaces `cidr`. */
export interface MgmtNetSpec {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: typeof KIND;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly generation?: number;
    readonly uid?: string;
  };
  readonly spec: Omit<RawSpecBody, 'network' | 'nodes'> & {
    readonly network: Omit<RawSpecBody['network'], 'cidr'> & { readonly cidrs: readonly string[] };
    readonly nodes: readonly MgmtNetNode[];
  };
  readonly status?: unknown;
}

/** Parses YAML (or JSON) text and validates it. */
export function parseSpec(text: string): MgmtNetSpec {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new SpecError('(document)', `not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  return validateSpec(document);
}

/** Validates an object (the parsed YAML or the custom resource) and fills in the defaults. */
export function validateSpec(obj: unknown): MgmtNetSpec {
  const result = resourceSchema.safeParse(obj);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(document)';
    throw new SpecError(field, issue.message);
  }
  const raw = result.data;
  const cidrs = (Array.isArray(raw.spec.network.cidr) ? raw.spec.network.cidr : [raw.spec.network.cidr]).map(
    (cidr, i) =>
      normalizeCidr(cidr, Array.isArray(raw.spec.network.cidr) ? `spec.network.cidr.${i}` : 'spec.network.cidr'),
  );
  const { cidr: _cidr, ...network } = raw.spec.network;
  const spec: MgmtNetSpec = {
    apiVersion: raw.apiVersion,
    kind: raw.kind,
    metadata: {
      name: raw.metadata.name,
      ...(raw.metadata.namespace !== undefined ? { namespace: raw.metadata.namespace } : {}),
      ...(raw.metadata.generation !== undefined ? { generation: raw.metadata.generation } : {}),
      ...(raw.metadata.uid !== undefined ? { uid: raw.metadata.uid } : {}),
    },
    spec: {
      ...raw.spec,
      network: { ...network, cidrs },
      linkRouter: {
        ...raw.spec.linkRouter,
        ...(raw.spec.linkRouter.cidr !== undefined
          ? { cidr: normalizeCidr(raw.spec.linkRouter.cidr, 'spec.linkRouter.cidr') }
          : {}),
      },
      nodes: raw.spec.nodes ?? [],
    },
    ...(raw.status !== undefined ? { status: raw.status } : {}),
  };
  checkConsistency(spec, raw.spec.nodes !== undefined);
  return spec;
}

/** `a.b.c.d/n` or `x::/n`, with the host bits cleared; anything else names the field. */
function normalizeCidr(text: string, field: string): string {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(text);
  } catch {
    throw new SpecError(field, `"${text}" is not a CIDR (expected e.g. 172.24.0.0/16 or fd00:24::/64)`);
  }
  const [address, prefix] = parsed;
  const max = address.kind() === 'ipv4' ? 30 : 126;
  if (prefix > max)
    throw new SpecError(field, `"${text}" is too small: a /${prefix} leaves no room for controllers and amphorae`);
  const network = networkAddress(address, prefix);
  if (network !== address.toString()) {
    throw new SpecError(field, `"${text}" has host bits set (did you mean ${network}/${prefix}?)`);
  }
  return `${network}/${prefix}`;
}

/** The largest network MTU the spec's topology allows on its underlay. */
function maxNetworkMtu(spec: MgmtNetSpec): number {
  const tunnelled = spec.spec.topology !== 'provider';
  const n = spec.spec.network;
  return n.underlayMtu - (tunnelled ? geneveOverhead(n.underlayIpVersion) : 0);
}

/** The checks across fields, each naming the field it refuses. */
function checkConsistency(spec: MgmtNetSpec, nodesGiven: boolean): void {
  const cidrs = spec.spec.network.cidrs;
  if (cidrs.length === 2 && cidrFamily(cidrs[0]!) === cidrFamily(cidrs[1]!)) {
    throw new SpecError('spec.network.cidr', 'two CIDRs must be one IPv4 and one IPv6 (dual stack)');
  }
  checkMtu(spec);
  checkProvider(spec.spec);
  checkLinkRouter(spec.spec);
  if (!nodesGiven && spec.spec.nodeSelector === undefined) {
    throw new SpecError('spec.nodes', 'list the controller nodes (or give spec.nodeSelector in Kubernetes)');
  }
  checkNodes(spec.spec);
}

function checkMtu(spec: MgmtNetSpec): void {
  const s = spec.spec;
  if (s.network.mtu === undefined) return;
  const max = maxNetworkMtu(spec);
  if (s.network.mtu > max) {
    const why =
      s.topology === 'provider'
        ? `the underlay MTU (spec.network.underlayMtu ${s.network.underlayMtu})`
        : `what a geneve network carries on a ${s.network.underlayMtu}-byte IPv${s.network.underlayIpVersion} underlay (${s.network.underlayMtu} - ${geneveOverhead(s.network.underlayIpVersion)} bytes of geneve and outer IP headers); raise spec.network.underlayMtu if the physical network carries jumbo frames`;
    throw new SpecError('spec.network.mtu', `${s.network.mtu} is larger than ${max}, ${why}`);
  }
  if (s.network.cidrs.some((c) => cidrFamily(c) === 6) && s.network.mtu < 1280) {
    throw new SpecError('spec.network.mtu', `${s.network.mtu} is below 1280, the IPv6 minimum`);
  }
}

function checkProvider(s: MgmtNetSpec['spec']): void {
  if (s.provider.networkType === 'vlan' && s.provider.segmentationId === undefined && s.topology !== 'per-node-ports') {
    throw new SpecError('spec.provider.segmentationId', 'required for a VLAN provider network');
  }
  if (s.provider.networkType === 'flat' && s.provider.segmentationId !== undefined) {
    throw new SpecError('spec.provider.segmentationId', 'a flat network has no segmentation ID');
  }
}

function checkLinkRouter(s: MgmtNetSpec['spec']): void {
  const cidrs = s.network.cidrs;
  if (s.topology !== 'link-router') {
    if (s.linkRouter.cidr !== undefined) {
      throw new SpecError('spec.linkRouter.cidr', `only used with topology link-router (topology is ${s.topology})`);
    }
    return;
  }
  if (s.linkRouter.cidr === undefined) {
    throw new SpecError('spec.linkRouter.cidr', "required for topology link-router (the controllers' provider subnet)");
  }
  const linkCidr = s.linkRouter.cidr;
  if (cidrs.length !== 1 || cidrFamily(cidrs[0]!) !== cidrFamily(linkCidr)) {
    throw new SpecError(
      'spec.linkRouter.cidr',
      'link-router needs one tenant CIDR of the same IP version as the provider CIDR',
    );
  }
  for (const cidr of cidrs) {
    if (cidrsOverlap(cidr, linkCidr)) {
      throw new SpecError('spec.linkRouter.cidr', `${linkCidr} overlaps the tenant CIDR ${cidr} (spec.network.cidr)`);
    }
  }
  if (s.linkRouter.gatewayIp !== undefined && !cidrContains(linkCidr, s.linkRouter.gatewayIp)) {
    throw new SpecError('spec.linkRouter.gatewayIp', `${s.linkRouter.gatewayIp} is not in ${linkCidr}`);
  }
}

/** Node names and chassis unique; pinned addresses in the node's subnets, one per family, not taken. */
function checkNodes(s: MgmtNetSpec['spec']): void {
  const seen = new Set<string>();
  const chassis = new Set<string>();
  const pinnedBy = new Map<string, string>();
  const nodeCidrs = s.topology === 'link-router' ? [s.linkRouter.cidr!] : s.network.cidrs;
  // link-router: the router takes the gateway address on the provider subnet.
  const reserved = s.topology === 'link-router' ? [s.linkRouter.gatewayIp ?? firstHost(s.linkRouter.cidr!)] : [];
  s.nodes.forEach((node, i) => {
    if (seen.has(node.name)) throw new SpecError(`spec.nodes.${i}.name`, `"${node.name}" is listed twice`);
    seen.add(node.name);
    if (node.chassis !== undefined) {
      if (chassis.has(node.chassis))
        throw new SpecError(`spec.nodes.${i}.chassis`, `chassis "${node.chassis}" is given to two nodes`);
      chassis.add(node.chassis);
    }
    const families = new Set<number>();
    (node.fixedIps ?? []).forEach((ip, j) => {
      const field = `spec.nodes.${i}.fixedIps.${j}`;
      const home = nodeCidrs.find((c) => cidrContains(c, ip));
      if (!home) throw new SpecError(field, `${ip} is not in ${nodeCidrs.join(' or ')}`);
      if (families.has(cidrFamily(home))) throw new SpecError(field, 'one address per IP version');
      if (reserved.includes(ip))
        throw new SpecError(field, `${ip} is the link router's address on the provider subnet`);
      if (pinnedBy.has(ip)) throw new SpecError(field, `${ip} is also pinned for node ${pinnedBy.get(ip)}`);
      pinnedBy.set(ip, node.name);
      families.add(cidrFamily(home));
    });
  });
}

/** The node entry, or a SpecError naming `field` when the node is not in the list. */
export function requireNode(spec: MgmtNetSpec, name: string, field = 'node'): MgmtNetNode {
  const node = spec.spec.nodes.find((n) => n.name === name);
  if (!node) {
    const known = spec.spec.nodes.map((n) => n.name).join(', ') || 'none';
    throw new SpecError(field, `"${name}" is not one of spec.nodes (${known})`);
  }
  return node;
}

/** The owner tag every object of this spec carries (the node agent's narrower spec fits). */
export function ownerTag(spec: { readonly metadata: { readonly name: string } }): string {
  return `octonet-mgmt-net:${spec.metadata.name}`;
}

export function nodeTag(node: string): string {
  return `octonet-node:${node}`;
}

/** Devstack's port name. */
export function nodePortName(node: string): string {
  return `octavia-health-manager-${node}-listen-port`;
}

export function nodeDeviceId(spec: MgmtNetSpec, node: string): string {
  return `${ownerTag(spec)}:${node}`;
}

export const HEALTH_MGR_DEVICE_OWNER = 'Octavia:health-mgr';
