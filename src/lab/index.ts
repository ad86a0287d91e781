/**
 * The lab's public surface, for `octonet lab`, the demo and the control-plane tests. Code outside
 * src/lab imports only this (the lab's own tests also reach behind it, to check what it left).
 */
export { Lab, LabAlreadyUpError, downLab, openLab, upLab } from './lab.js';
export type { LabUpOptions } from './lab.js';
export type { LabStatus } from './status.js';
export type { LabDownReport } from './teardown.js';
export type { Keepalived, VrrpOptions } from './keepalived.js';
export { DEFAULT_LAB_NAME, LabUsageError } from './topology.js';
export { cloudgwPeerBodies } from './bgp.js';
