/** The node agent: plugs this node's management port into its OVS and keeps it so. */
export { runNodeAgentPass, ownerTag, nodeTag, DEFAULT_NODE_INTERFACE, HEALTH_MANAGER_OWNER } from './pass.js';
export type { NodeAgentLog, NodeAgentPassOptions, NodeAgentReport, NodeAgentSpec } from './pass.js';
export type { NodeCondition } from './conditions.js';
export { hostFromPrefix, type NodeHost } from './host.js';
export { fromNeutronClient, httpNeutron, type NodeAgentNeutron } from './neutron.js';
