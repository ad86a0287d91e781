/**
 * The lab's public surface, for `octonet lab`, the demo and the control-plane tests. Code outside
 * src/lab imports only this (the lab's own tests also reach behind it, to check what it left).
 */
export { Lab, LabAlreadyUpError, LabNotUpError, downLab, openLab, upLab } from './lab.js';
export type { LabLocation, LabUpOptions } from './lab.js';
export type { LabNodeStatus, LabStatus, LabVmStatus } from './status.js';
export type { LabDownReport } from './teardown.js';
export type { CreateVmOptions } from './vm.js';
export type { Keepalived, VrrpOptions } from './keepalived.js';
export type { OutsideVlan } from './outside.js';
export type { RunOptions, RunResult } from './run.js';
export type { StrayProcess } from './processes.js';
export { DEFAULT_LAB_NAME, LabUsageError, PHYSICAL, UNDERLAY, labRoot } from './topology.js';
