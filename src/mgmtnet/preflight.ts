/**
 * The checks that need the cloud, run before the first write of an apply (reads only): which
 * project the objects go to, whether the credentials may do what the topology needs, whether each
 * given chassis is a known OVN chassis. Every failure is a `SpecError` naming the field.
 *
 * Project rules (documented in docs of the spec):
 * - `spec.project` unset: the credentials' own project. Keystone credentials that are not scoped to
 *   a project are refused (`spec.project: required ...`). In noauth the server's default project.
 * - `spec.project` set: with Keystone it must exist (looked up by ID, then by name); if it is not
 *   the credentials' own project, the credentials must be admin (Neutron only lets admins create for
 *   another project). In noauth it is taken as a project ID as is (there is nothing to ask).
 * - `link-router` and `provider` create provider networks, and `nodes[].chassis` sets
 *   `binding:host_id`: both need admin credentials.
 */
import { NeutronApiError, type NeutronClient } from './neutron-client.js';
import { SpecError, type MgmtNetSpec } from './spec.js';

export interface Preflight {
  /** `project_id` to put in create bodies; undefined: the caller's own project. */
  readonly projectId: string | undefined;
  /** Notes for the log (e.g. "cannot tell whether chassis exist"). */
  readonly notes: string[];
}

const OVN_AGENT_TYPES = new Set(['OVN Controller agent', 'OVN Controller Gateway agent']);

export async function preflight(spec: MgmtNetSpec, client: NeutronClient): Promise<Preflight> {
  const notes: string[] = [];
  const id = client.identity;
  const s = spec.spec;
  let projectId: string | undefined;
  if (id.mode === 'keystone') {
    if (s.project === undefined) {
      if (id.projectId === null) {
        throw new SpecError(
          'spec.project',
          'required: the credentials are not scoped to a project (set OS_PROJECT_NAME or spec.project)',
        );
      }
    } else if (s.project !== id.projectId && s.project !== id.projectName) {
      const found = await client.keystone?.findProject(s.project);
      if (found === null) throw new SpecError('spec.project', `no project named or with ID "${s.project}" in Keystone`);
      if (!id.isAdmin) {
        throw new SpecError(
          'spec.project',
          `"${s.project}" is not the credentials' project (${id.projectName ?? id.projectId}) and the credentials have no admin role, so Neutron would refuse to create objects there`,
        );
      }
      if (found === undefined) notes.push(`cannot look up project "${s.project}" in Keystone; using it as an ID`);
      projectId = found?.id ?? s.project;
    }
  } else if (s.project !== undefined) {
    projectId = s.project;
  }
  if (!id.isAdmin) {
    if (s.topology !== 'per-node-ports') {
      throw new SpecError('spec.topology', `${s.topology} creates a provider network, which needs admin credentials`);
    }
    const pinned = s.nodes.findIndex((n) => n.chassis !== undefined);
    if (pinned >= 0)
      throw new SpecError(`spec.nodes.${pinned}.chassis`, 'setting binding:host_id needs admin credentials');
  }
  await checkChassis(spec, client, notes);
  return { projectId, notes };
}

/** Each `nodes[].chassis` must be the host of an OVN controller agent, when the agents list says anything. */
async function checkChassis(spec: MgmtNetSpec, client: NeutronClient, notes: string[]): Promise<void> {
  const pinned = spec.spec.nodes.map((n, i) => ({ n, i })).filter(({ n }) => n.chassis !== undefined);
  if (pinned.length === 0) return;
  let agents: { agent_type: string; host: string }[];
  try {
    agents = await client.list('agents');
  } catch (error) {
    if (error instanceof NeutronApiError && (error.status === 403 || error.status === 404)) {
      notes.push('cannot list agents: chassis names are not checked');
      return;
    }
    throw error;
  }
  const hosts = new Set(agents.filter((a) => OVN_AGENT_TYPES.has(a.agent_type)).map((a) => a.host));
  if (hosts.size === 0) {
    notes.push('no OVN controller agents are listed: chassis names are not checked');
    return;
  }
  for (const { n, i } of pinned) {
    if (!hosts.has(n.chassis!)) {
      throw new SpecError(
        `spec.nodes.${i}.chassis`,
        `"${n.chassis}" (node ${n.name}) is not a known OVN chassis (known: ${[...hosts].sort().join(', ')})`,
      );
    }
  }
}
