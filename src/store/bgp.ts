/**
 * neutron-dynamic-routing's tables: speakers, peers, and the speaker's bindings to peers, gateway
 * networks and DR agents. Reads only; the core services write through `rows.ts` and the binding
 * helpers here.
 */
import { sql } from 'kysely';
import type { Db, Tx } from './database.js';
import type { Condition, ListTable } from './list.js';
import type { BgpSpeakerTable } from './schema.js';

const text = (table: string, column: string) => ({ column: `${table}.${column}`, type: 'text' as const });
const int = (table: string, column: string) => ({ column: `${table}.${column}`, type: 'int' as const });

export const BGP_SPEAKERS_TABLE: ListTable = {
  table: 'bgp_speakers',
  columns: {
    id: text('bgp_speakers', 'id'),
    name: text('bgp_speakers', 'name'),
    local_as: int('bgp_speakers', 'local_as'),
    ip_version: int('bgp_speakers', 'ip_version'),
    tenant_id: text('bgp_speakers', 'project_id'),
    project_id: text('bgp_speakers', 'project_id'),
    advertise_floating_ip_host_routes: { column: 'bgp_speakers.advertise_floating_ip_host_routes', type: 'bool' },
    advertise_tenant_networks: { column: 'bgp_speakers.advertise_tenant_networks', type: 'bool' },
  },
};

export const BGP_PEERS_TABLE: ListTable & { readonly table: 'bgp_peers' } = {
  table: 'bgp_peers',
  columns: {
    id: text('bgp_peers', 'id'),
    name: text('bgp_peers', 'name'),
    peer_ip: text('bgp_peers', 'peer_ip'),
    remote_as: int('bgp_peers', 'remote_as'),
    auth_type: text('bgp_peers', 'auth_type'),
    tenant_id: text('bgp_peers', 'project_id'),
    project_id: text('bgp_peers', 'project_id'),
  },
};

/** Speakers a project sees: its own (admins see all; n-d-r's policy is admin-only anyway). */
export function bgpSpeakerVisibility(projectId: string | null): Condition {
  return sql`bgp_speakers.project_id = ${projectId ?? ''}`;
}

/** Peers a project sees: its own. */
export function bgpPeerVisibility(projectId: string | null): Condition {
  return sql`bgp_peers.project_id = ${projectId ?? ''}`;
}

export interface BgpSpeakerRecord {
  readonly row: BgpSpeakerTable;
  readonly peers: string[];
  readonly networks: string[];
}

export async function loadBgpSpeakerRecords(db: Db, rows: readonly BgpSpeakerTable[]): Promise<BgpSpeakerRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const peers = new Map<string, string[]>();
  for (const b of await db
    .selectFrom('bgp_speaker_peer_bindings')
    .selectAll()
    .where('bgp_speaker_id', 'in', ids)
    .execute())
    peers.set(b.bgp_speaker_id, [...(peers.get(b.bgp_speaker_id) ?? []), b.bgp_peer_id]);
  const networks = new Map<string, string[]>();
  for (const b of await db
    .selectFrom('bgp_speaker_network_bindings')
    .selectAll()
    .where('bgp_speaker_id', 'in', ids)
    .execute())
    networks.set(b.bgp_speaker_id, [...(networks.get(b.bgp_speaker_id) ?? []), b.network_id]);
  return rows.map((row) => ({ row, peers: peers.get(row.id) ?? [], networks: networks.get(row.id) ?? [] }));
}

export async function getBgpSpeakerRecord(db: Db, id: string): Promise<BgpSpeakerRecord | undefined> {
  const row = await db.selectFrom('bgp_speakers').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await loadBgpSpeakerRecords(db, [row]))[0] : undefined;
}

/** The agent ids hosting a speaker. */
export async function dragentsOfSpeaker(db: Db, speakerId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('bgp_speaker_dragent_bindings')
    .select('agent_id')
    .where('bgp_speaker_id', '=', speakerId)
    .orderBy('agent_id')
    .execute();
  return rows.map((r) => r.agent_id);
}

/** The speaker an agent hosts (at most one). */
export async function speakerOfDragent(db: Db, agentId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('bgp_speaker_dragent_bindings')
    .select('bgp_speaker_id')
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
  return row?.bgp_speaker_id;
}

/** Speakers no agent hosts, oldest id first (n-d-r takes the first one). */
export async function unscheduledSpeakers(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom('bgp_speakers')
    .select('id')
    .where('id', 'not in', db.selectFrom('bgp_speaker_dragent_bindings').select('bgp_speaker_id'))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Binds a speaker to an agent; false when the agent already hosts one. */
export async function bindDragent(tx: Tx, agentId: string, speakerId: string): Promise<boolean> {
  if ((await speakerOfDragent(tx, agentId)) !== undefined) return false;
  await tx
    .insertInto('bgp_speaker_dragent_bindings')
    .values({ agent_id: agentId, bgp_speaker_id: speakerId })
    .execute();
  return true;
}
