/**
 * Status: what OVN reports back, turned into what the Neutron API shows. Reads the NB and SB
 * replicas; writes to octonet's database only through the driver host's report calls.
 *
 *   port-status.ts         LSP `up` → port ACTIVE / DOWN (NB monitor, and again after each full pass)
 *   virtual-ports.ts       which amphora holds a VIP (SB `virtual_parent`, or MAC_Binding in
 *                          `learned-mac` mode) → the VIP port's `binding:host_id` and status
 *   chassis-agents.ts      SB chassis → agents (`GET /v2.0/agents`), port binding to a live chassis,
 *                          gateway candidates; agents.ts is the pure chassis → agent view
 *   floating-ip-status.ts  a floating IP's NAT row in the NB → ACTIVE / DOWN
 *
 * Router gateway scheduling (which chassis carries a gateway) is `../gateways.ts`.
 */
export { ChassisAgents } from './chassis-agents.js';
export { floatingIpStatus } from './floating-ip-status.js';
export { PortStatus } from './port-status.js';
export { VirtualPortLocations, type LearnedVip } from './virtual-ports.js';
