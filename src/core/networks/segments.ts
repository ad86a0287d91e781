/**
 * Network segments: ML2's type manager and its geneve, vlan and flat type drivers. Validates
 * provider attributes, reserves the requested segment or allocates a tenant one, and computes the
 * MTU each type allows.
 *
 * Allocation relies on the unique index over (type, physnet, segmentation id): two writers that
 * pick the same free id collide there and the losing transaction runs again.
 */
import type { NetworkConfig } from '../../config/config.js';
import { FlatNetworkInUse, InvalidInput, NoNetworkAvailable, TunnelIdInUse, VlanIdInUse } from '../errors.js';
import type { Tx } from '../../store/database.js';
import { lowestFreeSegmentationId, segmentTaken } from '../../store/networks.js';

export const NETWORK_TYPES = ['geneve', 'vlan', 'flat'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

export const MIN_VLAN_TAG = 1;
export const MAX_VLAN_TAG = 4094;
/** OVN's largest tunnel key for logical switches when no VXLAN chassis exists (NB_Global `max_tunid`). */
export const MAX_GENEVE_VNI = 16711680;
/** IPv4 header the tunnel adds on top of the geneve header (`overlay_ip_version` 4). */
const TUNNEL_IP_HEADER = 20;

export interface Segment {
  readonly network_type: NetworkType;
  /** null for tunnel types. */
  readonly physical_network: string | null;
  /** null for flat networks. */
  readonly segmentation_id: number | null;
}

/** The provider request as the API gave it (absent attributes are undefined). */
export interface ProviderRequest {
  readonly 'provider:network_type'?: unknown;
  readonly 'provider:physical_network'?: unknown;
  readonly 'provider:segmentation_id'?: unknown;
}

type Range = readonly [number, number];

/** Parsed type-driver configuration. */
export interface SegmentConfig {
  readonly tenantNetworkTypes: readonly NetworkType[];
  readonly geneveRanges: readonly Range[];
  /** null: any physnet ('*'). */
  readonly flatNetworks: ReadonlySet<string> | null;
  /** Physnets known for VLAN networks and their tenant ranges (possibly none). */
  readonly vlanRanges: ReadonlyMap<string, readonly Range[]>;
  readonly globalPhysnetMtu: number;
  readonly maxHeaderSize: number;
  readonly physicalNetworkMtus: Readonly<Record<string, number>>;
}

export function parseSegmentConfig(config: NetworkConfig): SegmentConfig {
  const range = (text: string): Range => {
    const [a, b] = text.split(':').map(Number) as [number, number];
    return [Math.min(a, b), Math.max(a, b)];
  };
  const vlanRanges = new Map<string, Range[]>();
  for (const entry of config.network_vlan_ranges) {
    const [physnet, ...rest] = entry.split(':');
    const ranges = vlanRanges.get(physnet!) ?? [];
    if (rest.length) ranges.push(range(rest.join(':')));
    vlanRanges.set(physnet!, ranges);
  }
  return {
    tenantNetworkTypes: config.tenant_network_types,
    geneveRanges: config.geneve_vni_ranges.map(range),
    flatNetworks: config.flat_networks.includes('*') ? null : new Set(config.flat_networks),
    vlanRanges,
    globalPhysnetMtu: config.global_physnet_mtu,
    maxHeaderSize: config.max_header_size,
    physicalNetworkMtus: config.physical_network_mtus,
  };
}

const invalid = (message: string) => InvalidInput({ error_message: message });

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The segment a network create asks for, validated (`_process_provider_create` and each type
 * driver's `validate_provider_segment`); null when no provider attribute is set.
 */
export function requestedSegment(config: SegmentConfig, request: ProviderRequest): Segment | null {
  const type = request['provider:network_type'];
  const physnet = request['provider:physical_network'];
  const segId = request['provider:segmentation_id'];
  if (![type, physnet, segId].some(isSet)) return null;
  if (!isSet(type)) throw invalid('network_type required');
  // The attribute map's validateString let only a string through.
  const physicalNetwork = typeof physnet === 'string' ? physnet : null;
  const segmentationId = isSet(segId) ? (segId as number) : null;
  switch (type) {
    case 'geneve':
      if (physicalNetwork) throw invalid('provider:physical_network specified for geneve network');
      if (segmentationId !== null && segmentationId > MAX_GENEVE_VNI) {
        throw invalid(`Segmentation ID should be lower or equal to ${MAX_GENEVE_VNI}`);
      }
      // Neutron accepts 0 and negative VNIs and OVN cannot use them; octonet refuses them.
      if (segmentationId !== null && segmentationId < 1)
        throw invalid('Segmentation ID should be greater or equal to 1');
      return { network_type: 'geneve', physical_network: null, segmentation_id: segmentationId };
    case 'vlan':
      if (physicalNetwork) {
        if (!config.vlanRanges.has(physicalNetwork)) {
          throw invalid(`physical_network '${physicalNetwork}' unknown for VLAN provider network`);
        }
        if (segmentationId !== null && (segmentationId < MIN_VLAN_TAG || segmentationId > MAX_VLAN_TAG)) {
          throw invalid(`segmentation_id out of range (${MIN_VLAN_TAG} through ${MAX_VLAN_TAG})`);
        }
      } else if (segmentationId !== null) {
        throw invalid('segmentation_id requires physical_network for VLAN provider network');
      }
      return { network_type: 'vlan', physical_network: physicalNetwork, segmentation_id: segmentationId };
    case 'flat':
      if (!physicalNetwork) throw invalid('physical_network required for flat provider network');
      if (config.flatNetworks && config.flatNetworks.size === 0) throw invalid('Flat provider networks are disabled');
      if (config.flatNetworks && !config.flatNetworks.has(physicalNetwork)) {
        throw invalid(`physical_network '${physicalNetwork}' unknown for flat provider network`);
      }
      if (segmentationId) throw invalid('segmentation_id prohibited for flat provider network');
      return { network_type: 'flat', physical_network: physicalNetwork, segmentation_id: null };
    default:
      throw invalid(`network_type value '${String(type)}' not supported`);
  }
}

/** How a segment is stored: '' and 0 stand for "none" so the unique index sees every allocation. */
export function storedKey(segment: Segment): { type: string; physnet: string; id: number } {
  return { type: segment.network_type, physnet: segment.physical_network ?? '', id: segment.segmentation_id ?? 0 };
}

/**
 * A free id of the ranges, chosen at random as Neutron does (clients must not expect the lowest):
 * the lowest free id at or after a random point, wrapping round to the start of the ranges.
 * Random starts also keep concurrent creators from all racing for the same id.
 */
async function randomFree(tx: Tx, type: string, physnet: string, ranges: readonly Range[]): Promise<number | null> {
  const total = ranges.reduce((n, [min, max]) => n + (max - min + 1), 0);
  if (total <= 0) return null;
  let offset = Math.floor(Math.random() * total);
  let startRange = 0;
  while (offset > ranges[startRange]![1] - ranges[startRange]![0]) {
    offset -= ranges[startRange]![1] - ranges[startRange]![0] + 1;
    startRange++;
  }
  for (let i = 0; i <= ranges.length; i++) {
    const index = (startRange + i) % ranges.length;
    const [min, max] = ranges[index]!;
    const from = i === 0 ? min + offset : min;
    const to = i === ranges.length ? min + offset - 1 : max;
    if (from > to) continue;
    const id = await lowestFreeSegmentationId(tx, type, physnet, from, to);
    if (id !== null) return id;
  }
  return null;
}

/**
 * Turns a requested segment into a reserved one: a fully specified segment must be free; a
 * partial VLAN segment (physnet only) gets the lowest free VLAN of that physnet's ranges.
 */
export async function reserveProviderSegment(tx: Tx, config: SegmentConfig, segment: Segment): Promise<Segment> {
  const key = storedKey(segment);
  switch (segment.network_type) {
    case 'flat':
      if (await segmentTaken(tx, 'flat', key.physnet, 0)) {
        throw FlatNetworkInUse({ physical_network: segment.physical_network });
      }
      return segment;
    case 'vlan': {
      if (segment.segmentation_id !== null) {
        if (await segmentTaken(tx, 'vlan', key.physnet, key.id)) {
          throw VlanIdInUse({ vlan_id: segment.segmentation_id, physical_network: segment.physical_network });
        }
        return segment;
      }
      const physnets = segment.physical_network ? [segment.physical_network] : [...config.vlanRanges.keys()];
      for (const physnet of physnets) {
        const id = await randomFree(tx, 'vlan', physnet, config.vlanRanges.get(physnet) ?? []);
        if (id !== null) return { ...segment, physical_network: physnet, segmentation_id: id };
      }
      throw NoNetworkAvailable({});
    }
    case 'geneve': {
      if (segment.segmentation_id !== null) {
        if (await segmentTaken(tx, 'geneve', '', key.id)) throw TunnelIdInUse({ tunnel_id: segment.segmentation_id });
        return segment;
      }
      const id = await randomFree(tx, 'geneve', '', config.geneveRanges);
      if (id === null) throw NoNetworkAvailable({});
      return { ...segment, segmentation_id: id };
    }
  }
}

/** A segment for a network created without provider attributes (`allocate_tenant_segment`). */
export async function allocateTenantSegment(tx: Tx, config: SegmentConfig): Promise<Segment> {
  for (const type of config.tenantNetworkTypes) {
    if (type === 'geneve') {
      const id = await randomFree(tx, 'geneve', '', config.geneveRanges);
      if (id !== null) return { network_type: 'geneve', physical_network: null, segmentation_id: id };
    } else {
      for (const [physnet, ranges] of config.vlanRanges) {
        const id = await randomFree(tx, 'vlan', physnet, ranges);
        if (id !== null) return { network_type: 'vlan', physical_network: physnet, segmentation_id: id };
      }
    }
  }
  throw NoNetworkAvailable({});
}

/** The largest MTU a network on this segment can have (each type driver's `get_mtu`). */
export function maxMtu(config: SegmentConfig, segment: Segment): number {
  if (segment.network_type === 'geneve') {
    const physnetMtu = config.globalPhysnetMtu - config.maxHeaderSize;
    return physnetMtu > 0 ? physnetMtu - TUNNEL_IP_HEADER : 0;
  }
  const physnet = segment.physical_network ?? '';
  return config.physicalNetworkMtus[physnet] ?? config.globalPhysnetMtu;
}
