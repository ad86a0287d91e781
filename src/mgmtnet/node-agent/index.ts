/** The node agent: plugs this node's management port into its OVS and keeps it so. */
export { runNodeAgentPass, runNodeAgentUntilSettled, DEFAULT_NODE_INTERFACE } from './pass.js';
export type { NodeAgentLog, NodeAgentPassOptions, NodeAgentReport, NodeAgentSpec, Requeue } from './pass.js';
export { hostFromPrefix, type NodeHost } from './host.js';
export { fromNeutronClient, type NodeAgentNeutron } from './neutron.js';
