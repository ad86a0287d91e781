/**
 * The API extensions octonet serves, with Neutron's own descriptors (name, alias, description,
 * updated) so clients probing `GET /v2.0/extensions/<alias>` find what they know.
 *
 * Only what is implemented end to end is listed: an alias here is a promise to clients (the
 * `openstack` CLI changes what it sends based on these). Add an alias in the same change that
 * makes it work.
 */

export interface ExtensionDescriptor {
  readonly name: string;
  readonly alias: string;
  readonly description: string;
  readonly updated: string;
}

export const EXTENSIONS: readonly ExtensionDescriptor[] = [
  {
    name: 'Address scope',
    alias: 'address-scope',
    description: 'Address scopes extension.',
    updated: '2015-07-26T10:00:00-00:00',
  },
  {
    name: 'agent',
    alias: 'agent',
    description: 'The agent management extension.',
    updated: '2013-02-03T10:00:00-00:00',
  },
  {
    name: 'Allowed Address Pairs',
    alias: 'allowed-address-pairs',
    description: 'Provides allowed address pairs',
    updated: '2013-07-23T10:00:00-00:00',
  },
  {
    name: 'Availability Zone',
    alias: 'availability_zone',
    description: 'The availability zone extension.',
    updated: '2015-01-01T10:00:00-00:00',
  },
  {
    name: 'Neutron BGP Dynamic Routing Extension',
    alias: 'bgp',
    description: 'Discover and advertise routes for Neutron prefixes dynamically via BGP',
    updated: '2016-05-10T15:37:00-00:00',
  },
  {
    name: 'BGP 4-byte AS numbers',
    alias: 'bgp_4byte_asn',
    description: 'Support bgp 4-byte AS number',
    updated: '2017-09-07T00:00:00-00:00',
  },
  {
    name: 'BGP Dynamic Routing Agent Scheduler',
    alias: 'bgp_dragent_scheduler',
    description: 'Schedules BgpSpeakers on BgpDrAgent',
    updated: '2015-07-30T10:00:00-00:00',
  },
  {
    name: 'Port Binding',
    alias: 'binding',
    description: 'Expose port bindings of a virtual port to external application',
    updated: '2014-02-03T10:00:00-00:00',
  },
  {
    name: 'Port Bindings Extended',
    alias: 'binding-extended',
    description: 'Expose port bindings of a virtual port to external application',
    updated: '2017-07-17T10:00:00-00:00',
  },
  {
    name: 'dns_domain for ports',
    alias: 'dns-domain-ports',
    description: 'Allows the DNS domain to be specified for a network port.',
    updated: '2017-04-24T10:00:00-00:00',
  },
  {
    name: 'DNS Integration',
    alias: 'dns-integration',
    description: 'Provides integration with DNS.',
    updated: '2015-08-15T18:00:00-00:00',
  },
  {
    name: 'Empty String Filtering Extension',
    alias: 'empty-string-filtering',
    description: 'Allow filtering by attributes with empty string value',
    updated: '2018-05-01T10:00:00-00:00',
  },
  {
    name: 'Neutron L3 Configurable external gateway mode',
    alias: 'ext-gw-mode',
    description: 'Extension of the router abstraction for specifying whether SNAT should occur on the external gateway',
    updated: '2013-03-28T10:00:00-00:00',
  },
  {
    name: 'Neutron external network',
    alias: 'external-net',
    description: 'Adds external network attribute to network resource.',
    updated: '2013-01-14T10:00:00-00:00',
  },
  {
    name: 'Neutron Extra DHCP options',
    alias: 'extra_dhcp_opt',
    description:
      'Extra options configuration for DHCP. For example PXE boot options to DHCP clients can be specified (e.g. tftp-server, server-ip-address, bootfile-name)',
    updated: '2013-03-17T12:00:00-00:00',
  },
  {
    name: 'Neutron Extra Route',
    alias: 'extraroute',
    description: 'Extra routes configuration for L3 router',
    updated: '2013-02-01T10:00:00-00:00',
  },
  {
    name: 'Atomically add/remove extra routes',
    alias: 'extraroute-atomic',
    description: 'Edit extra routes of a router on server side by atomically adding/removing extra routes',
    updated: '2019-07-10T00:00:00+00:00',
  },
  {
    name: 'Filter parameters validation',
    alias: 'filter-validation',
    description: 'Provides validation on filter parameters.',
    updated: '2018-07-04T10:00:00-00:00',
  },
  {
    name: 'Floating IP Port Details Extension',
    alias: 'fip-port-details',
    description: 'Add port_details attribute to Floating IP resource',
    updated: '2018-04-09T10:00:00-00:00',
  },
  {
    name: 'IP address substring filtering',
    alias: 'ip-substring-filtering',
    description: 'Provides IP address substring filtering when listing ports',
    updated: '2017-11-28T09:00:00-00:00',
  },
  {
    name: 'IP Allocation',
    alias: 'ip_allocation',
    description: 'IP allocation extension.',
    updated: '2016-06-10T23:00:00-00:00',
  },
  {
    name: 'L3 Agent Scheduler',
    alias: 'l3_agent_scheduler',
    description: 'Schedule routers among l3 agents',
    updated: '2013-02-07T10:00:00-00:00',
  },
  {
    name: 'Network MTU',
    alias: 'net-mtu',
    description: 'Provides MTU attribute for a network resource.',
    updated: '2015-03-25T10:00:00-00:00',
  },
  {
    name: 'Network MTU (writable)',
    alias: 'net-mtu-writable',
    description: 'Provides a writable MTU attribute for a network resource.',
    updated: '2017-07-12T00:00:00-00:00',
  },
  {
    name: 'Network IP Availability',
    alias: 'network-ip-availability',
    description: 'Provides IP availability data for each network and subnet.',
    updated: '2015-09-24T00:00:00-00:00',
  },
  {
    name: 'Network Availability Zone',
    alias: 'network_availability_zone',
    description: 'Availability zone support for network.',
    updated: '2015-01-01T10:00:00-00:00',
  },
  {
    name: 'Pagination support',
    alias: 'pagination',
    description: 'Extension that indicates that pagination is enabled.',
    updated: '2016-06-12T00:00:00-00:00',
  },
  {
    name: 'Neutron Port MAC address regenerate',
    alias: 'port-mac-address-regenerate',
    description: 'Network port MAC address regenerate',
    updated: '2018-05-03T10:00:00-00:00',
  },
  {
    name: 'Port Security',
    alias: 'port-security',
    description: 'Provides port security',
    updated: '2012-07-23T10:00:00-00:00',
  },
  {
    name: 'project_id field enabled',
    alias: 'project-id',
    description: 'Extension that indicates that project_id field is enabled.',
    updated: '2016-09-09T09:09:09-09:09',
  },
  {
    name: 'Provider Network',
    alias: 'provider',
    description: 'Expose mapping of virtual networks to physical networks',
    updated: '2012-09-07T10:00:00-00:00',
  },
  {
    name: 'Quality of Service',
    alias: 'qos',
    description: 'The Quality of Service extension.',
    updated: '2015-06-08T10:00:00-00:00',
  },
  {
    name: 'Direction for QoS bandwidth limit rule',
    alias: 'qos-bw-limit-direction',
    description: 'Allow to configure QoS bandwidth limit rule with specific direction: ingress or egress',
    updated: '2017-04-10T10:00:00-00:00',
  },
  {
    name: 'Ingress direction for QoS minimum bandwidth rule',
    alias: 'qos-bw-minimum-ingress',
    description: 'Allow to configure QoS minumum bandwidth rule with ingress direction.',
    updated: '2018-07-09T10:00:00-00:00',
  },
  {
    name: 'QoS default policy',
    alias: 'qos-default',
    description: 'Expose the QoS default policy per project',
    updated: '2017-041-06T10:00:00-00:00',
  },
  {
    name: 'QoS port network policy ID',
    alias: 'qos-port-network-policy',
    description: 'Adds a the QoS network ID to the port definition',
    updated: '2019-11-01T10:00:00-00:00',
  },
  {
    name: 'Details of QoS rule types',
    alias: 'qos-rule-type-details',
    description: 'Expose details about QoS rule types supported by loaded backend drivers',
    updated: '2017-06-22T10:00:00-00:00',
  },
  {
    name: 'Allow to filter the list of QoS rule types',
    alias: 'qos-rule-type-filter',
    description:
      'Allows to filter the QoS rule type list adding two new flags. "all_rules" prints all implemented QoS rule types."all_supported" prints all supported QoS rule types by the loaded mechanism drivers',
    updated: '2022-02-02T10:00:00-00:00',
  },
  {
    name: 'Quality of Service rules alias API',
    alias: 'qos-rules-alias',
    description: 'API to enable GET, PUT and DELETE operations on QoS policy rules without specifying policy ID',
    updated: '2018-10-07T10:00:00-00:00',
  },
  {
    name: 'Quota engine limit check',
    alias: 'quota-check-limit',
    description: 'Support for checking the resource usage before applying a new quota limit',
    updated: '2021-09-08T16:00:00-00:00',
  },
  {
    name: 'Quota details management support',
    alias: 'quota_details',
    description: 'Expose functions for quotas usage statistics per project',
    updated: '2017-02-10T10:00:00-00:00',
  },
  {
    name: 'Quota management support',
    alias: 'quotas',
    description: 'Expose functions for quotas management per project',
    updated: '2012-07-29T10:00:00-00:00',
  },
  {
    name: 'RBAC Policies',
    alias: 'rbac-policies',
    description: 'Allows creation and modification of policies that control project access to resources.',
    updated: '2015-06-17T12:15:12-00:00',
  },
  {
    name: 'If-Match constraints based on revision_number',
    alias: 'revision-if-match',
    description: 'Extension indicating that If-Match based on revision_number is supported.',
    updated: '2016-12-11T00:00:00-00:00',
  },
  {
    name: 'Neutron L3 Router',
    alias: 'router',
    description:
      'Router abstraction for basic L3 forwarding between L2 Neutron networks and access to external networks via a NAT gateway.',
    updated: '2012-07-20T10:00:00-00:00',
  },
  {
    name: 'Router Availability Zone',
    alias: 'router_availability_zone',
    description: 'Availability zone support for router.',
    updated: '2015-01-01T10:00:00-00:00',
  },
  {
    name: 'security-group',
    alias: 'security-group',
    description: 'The security groups extension.',
    updated: '2012-10-05T10:00:00-00:00',
  },
  {
    name: 'Normalized CIDR field for security group rules',
    alias: 'security-groups-normalized-cidr',
    description: 'Add new field with normalized remote_ip_prefix cidr in SG rule',
    updated: '2020-07-28T10:00:00-00:00',
  },
  {
    name: "Security group rule belongs to the project's default security group",
    alias: 'security-groups-rules-belongs-to-default-sg',
    description: "Flag to determine if the security group rule belongs to the project's default security group",
    updated: '2023-05-23T10:00:00-00:00',
  },
  {
    name: 'Neutron Service Type Management',
    alias: 'service-type',
    description: 'API for retrieving service providers for Neutron advanced services',
    updated: '2013-01-20T00:00:00-00:00',
  },
  {
    name: 'Sorting support',
    alias: 'sorting',
    description: 'Extension that indicates that sorting is enabled.',
    updated: '2016-06-12T00:00:00-00:00',
  },
  {
    name: 'standard-attr-description',
    alias: 'standard-attr-description',
    description: 'Extension to add descriptions to standard attributes',
    updated: '2016-02-10T10:00:00-00:00',
  },
  {
    name: 'Resource revision numbers',
    alias: 'standard-attr-revisions',
    description: 'This extension will display the revision number of neutron resources.',
    updated: '2016-04-11T10:00:00-00:00',
  },
  {
    name: 'Tag support for resources with standard attribute: subnet, trunk, network_segment_range, router, network, policy, subnetpool, port, security_group, floatingip',
    alias: 'standard-attr-tag',
    description: 'Enables to set tag on resources with standard attribute.',
    updated: '2017-01-01T00:00:00-00:00',
  },
  {
    name: 'Resource timestamps',
    alias: 'standard-attr-timestamp',
    description:
      'Adds created_at and updated_at fields to all Neutron resources that have Neutron standard attributes.',
    updated: '2016-09-12T10:00:00-00:00',
  },
  {
    name: 'Stateful security group',
    alias: 'stateful-security-group',
    description: 'Indicates if the security group is stateful or not',
    updated: '2019-11-26T09:00:00-00:00',
  },
  {
    name: 'Subnet DNS publish fixed IP',
    alias: 'subnet-dns-publish-fixed-ip',
    description: 'Support choosing to publish DNS records for IPs from a subnet',
    updated: '2019-05-24T10:00:00-00:00',
  },
  {
    name: 'Subnet service types',
    alias: 'subnet-service-types',
    description: 'Provides ability to set the subnet service_types field',
    updated: '2016-03-15T18:00:00-00:00',
  },
  {
    name: 'Subnet Allocation',
    alias: 'subnet_allocation',
    description: 'Enables allocation of subnets from a subnet pool',
    updated: '2015-03-30T10:00:00-00:00',
  },
  {
    name: 'Tag creation extension',
    alias: 'tag-creation',
    description: 'Allow to create multiple tags for a resource',
    updated: '2024-23-07T10:00:00-00:00',
  },
  {
    name: 'Tag Ports During Bulk Creation',
    alias: 'tag-ports-during-bulk-creation',
    description: 'Allow to tag ports during bulk creation',
    updated: '2019-12-29T19:00:00-00:00',
  },
];

const BY_ALIAS = new Map(EXTENSIONS.map((e) => [e.alias, e]));

export function findExtension(alias: string): ExtensionDescriptor | undefined {
  return BY_ALIAS.get(alias);
}
