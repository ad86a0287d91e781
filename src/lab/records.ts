/**
 * What a lab remembers about itself between commands: `lab.json` (written by `up`) and one file
 * per VM (written by `vm create`, removed by `vm delete`). One file per VM so that several
 * `vm create` may run at once without a read-modify-write race; creating the file exclusively
 * is also how a VM name is claimed.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { LabLayout } from './topology.js';

export interface NodeRecord {
  /** `node<K>`; also the chassis name, `external-ids:hostname` and the namespace suffix. */
  name: string;
  index: number;
  /** Has `ovn-cms-options=enable-chassis-as-gw`. */
  gateway: boolean;
}

export interface LabRecord {
  name: string;
  /** `starting` until every node's tunnels are up; a lab left `starting` needs `lab down`. */
  state: 'starting' | 'up';
  nodes: NodeRecord[];
  underlayMtu: number;
  /** `lab up --bgp`: the cloudgws, the core and FRR on every node. */
  bgp?: boolean;
  /** `lab up --cluster`: NB and SB as 3-member RAFT clusters and two ovn-northd (central.ts). */
  cluster?: boolean;
  createdAt: string;
}

export interface VmRecord {
  name: string;
  node: string;
  /** The Neutron port id, i.e. the Logical_Switch_Port name (`external_ids:iface-id`). */
  port: string;
  mac: string;
  namespace: string;
  /** Host end of the veth, an OVS port on the node's br-int. */
  tap: string;
  /** What Nova would set as `external_ids:vm-uuid`. */
  vmUuid: string;
  createdAt: string;
}

function writeAtomically(path: string, value: unknown): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, JSON.stringify(value, null, 2) + '\n');
  renameSync(temporary, path);
}

export function writeLabRecord(layout: LabLayout, record: LabRecord): void {
  writeAtomically(layout.recordFile, record);
}

export function readLabRecord(layout: LabLayout): LabRecord | undefined {
  try {
    return JSON.parse(readFileSync(layout.recordFile, 'utf8')) as LabRecord;
  } catch {
    return undefined;
  }
}

/** Claims the VM name: false when a VM of that name already exists. */
export function claimVmRecord(layout: LabLayout, record: VmRecord): boolean {
  mkdirSync(layout.vmDir, { recursive: true });
  try {
    writeFileSync(layout.vmRecord(record.name), JSON.stringify(record, null, 2) + '\n', { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export function readVmRecord(layout: LabLayout, name: string): VmRecord | undefined {
  try {
    return JSON.parse(readFileSync(layout.vmRecord(name), 'utf8')) as VmRecord;
  } catch {
    return undefined;
  }
}

export function readVmRecords(layout: LabLayout): VmRecord[] {
  let files: string[];
  try {
    files = readdirSync(layout.vmDir);
  } catch {
    return [];
  }
  return files
    .filter((file) => file.endsWith('.json'))
    .map((file) => readVmRecord(layout, file.slice(0, -'.json'.length)))
    .filter((record): record is VmRecord => record !== undefined)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
}

export function removeVmRecord(layout: LabLayout, name: string): void {
  rmSync(layout.vmRecord(name), { force: true });
  rmSync(layout.vmDhcpLog(name), { force: true });
}
