/** The node agent: plugs this node's management port into its OVS and keeps it so. */
export { runNodeAgentPass, runNodeAgentUntilSettled } from './pass.js';
export type { NodeAgentLog, NodeAgentPassOptions, NodeAgentReport, NodeAgentSpec } from './pass.js';
export { type NodeHost } from './host.js';
export { fromNeutronClient, type NodeAgentNeutron } from './neutron.js';
