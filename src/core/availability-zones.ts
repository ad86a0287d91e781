/**
 * Availability zones (`GET /v2.0/availability_zones`): which zones exist, for which resource type,
 * and whether they are available. Under OVN they are the zones of the gateway chassis, offered for
 * routers; that source arrives with the OVN driver, so until then `source` lists none.
 *
 * Filters match exactly, OR within one attribute and AND across attributes, as the API reference
 * documents. (Neutron with ML2/OVN refuses them with InvalidInput because it hands them to its
 * agents table; octonet does not copy that.)
 */
import type { ResourceSpec } from './attributes.js';
import type { Authorizer } from './authorizer.js';
import type { RequestContext } from './context.js';

export interface AvailabilityZone {
  readonly name: string;
  /** `router` or `network`. */
  readonly resource: string;
  /** `available` or `unavailable`. */
  readonly state: string;
}

export type AvailabilityZoneSource = () => Promise<readonly AvailabilityZone[]>;

const SHOWN = { post: false, put: false, visible: true, filter: true } as const;

/** neutron-lib's `availability_zone` attribute map: three filterable, unsortable attributes. */
export const AVAILABILITY_ZONE_SPEC: ResourceSpec = {
  name: 'availability_zone',
  collection: 'availability_zones',
  path: 'availability_zones',
  allowBulk: false,
  attributes: { name: SHOWN, resource: SHOWN, state: SHOWN },
};

export class AvailabilityZoneService {
  constructor(
    private readonly authz: Authorizer,
    private readonly source: AvailabilityZoneSource = async () => [],
  ) {}

  async list(ctx: RequestContext, filters: Readonly<Record<string, readonly unknown[]>>): Promise<AvailabilityZone[]> {
    const zones = await this.source();
    return zones
      .filter((zone) =>
        Object.entries(filters).every(([key, values]) => values.includes(zone[key as keyof AvailabilityZone])),
      )
      .filter((zone) => this.authz.canRead(ctx, 'availability_zone', { ...zone, project_id: ctx.projectId }))
      .map((zone) => ({ name: zone.name, resource: zone.resource, state: zone.state }));
  }
}
