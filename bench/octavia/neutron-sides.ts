/**
 * The two Neutrons the Octavia bench compares, behind one shape: octonet (started here on PostgreSQL
 * with a real OVN central, `--auth keystone`), and the real Neutron Zed + ML2/OVN of the shared anchor
 * (../shared/anchors/neutron-zed: noauth neutron-server on :9797, its own OVN NB :6651 / SB :6652, a
 * fake gateway chassis `anchor-host-1`). What each gives the bench: the server's root (the measurement
 * proxy forwards there), the OVN databases the OVN provider writes, the chassis a Nova compute must be
 * named after for its ports to bind, and admin calls that bypass the proxy (set-up and clean-up, which
 * are not measured). The anchor is started with its start.sh when it does not answer, and is never
 * stopped or wiped: other people use it. What the bench makes there, it deletes (removeNetworks).
 *
 * Identity on the anchor: its stock noauth pipeline makes every call an admin of `fake_project_id`,
 * so Octavia's amphora ports would belong to that project while Nova boots the amphorae in Keystone's
 * `service` project, and Nova refuses to attach them ("Port ... not usable for instance": the port's
 * project must be the instance's). So the proxy does for the anchor what keystonemiddleware's
 * authtoken does inside a deployed neutron-server: it validates the caller's Keystone token (once per
 * token, cached, as authtoken caches) and sends the call to the anchor's `/hdr/v2.0` pipeline, which
 * builds the request context from the X-User-Id / X-Project-Id / X-Roles headers exactly as behind
 * authtoken. The validation happens before the proxy's clock starts: Neutron's figure leaves out the
 * token check that octonet's figure includes (octonet runs with `--auth keystone`), which only flatters
 * Neutron.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startApi, type TestApi } from '../../test/fixtures/api.js';
import type { Json } from '../../test/fixtures/json.js';
import type { KeystoneFixture, KeystoneUser } from '../../test/fixtures/keystone.js';
import { octonetNovaConfig } from '../../test/fixtures/nova.js';
import { startOvnCentral } from '../../test/fixtures/ovn-central.js';
import { anchorDir, anchorRunnable } from '../api/neutron-target.js';
import type { Forwarded, Prepare } from './measurement-proxy.js';

export type SideName = 'octonet' | 'anchor';

/** An admin's Neutron calls straight to the server (not through the proxy, so never counted). */
export interface AdminCalls {
  /** `GET /v2.0/<path>`; the parsed body. */
  get(path: string): Promise<Json>;
  /** `POST /v2.0/<path>`; the parsed body, which must be a 201. */
  post(path: string, body: Json): Promise<Json>;
  /** `DELETE /v2.0/<path>`; the status. */
  delete(path: string): Promise<number>;
}

export interface NeutronSide {
  readonly name: SideName;
  /** How the tables name it. */
  readonly label: string;
  /** The server's root, e.g. `http://127.0.0.1:9797`. */
  readonly url: string;
  readonly ovn: { readonly nb: string; readonly sb: string };
  /** A registered chassis: the one nova-compute is named after, so the amphorae's ports bind. */
  readonly computeHost: string;
  readonly admin: AdminCalls;
  /** What the measurement proxy does to a call before forwarding it (the anchor's token check). */
  readonly prepare?: Prepare;
  /**
   * octonet's own request log since `from` (a count returned earlier): its calls and their summed
   * handling time, a cross-check of the proxy's figure. Only octonet has one.
   */
  ownLog?: { mark(): number; since(from: number): { calls: number; ms: number } };
  stop(): Promise<void>;
}

const ANCHOR_URL = 'http://127.0.0.1:9797';
const ANCHOR_OVN = { nb: 'tcp:127.0.0.1:6651', sb: 'tcp:127.0.0.1:6652' };
const ANCHOR_CHASSIS = 'anchor-host-1';
const OCTONET_CHASSIS = 'node1';

async function parsed(response: Response): Promise<Json> {
  const text = await response.text();
  return text ? (JSON.parse(text) as Json) : {};
}

/** Admin calls over plain HTTP with `headers` (a token for octonet; none for the noauth anchor: admin). */
function adminCalls(root: string, headers: () => Promise<Record<string, string>>): AdminCalls {
  const call = async (method: string, path: string, body?: Json) =>
    fetch(`${root}/v2.0/${path}`, {
      method,
      headers: { ...(await headers()), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    get: async (path) => parsed(await call('GET', path)),
    post: async (path, body) => {
      const response = await call('POST', path, body);
      const answer = await parsed(response);
      if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    },
    delete: async (path) => {
      const response = await call('DELETE', path);
      await response.body?.cancel();
      return response.status;
    },
  };
}

export async function startOctonetSide(
  keystone: KeystoneFixture,
  novaUser: KeystoneUser & { passwordFile: string },
): Promise<NeutronSide> {
  const ovn = startOvnCentral();
  ovn.addChassis(OCTONET_CHASSIS, '192.0.2.11');
  let api: (TestApi & { close(): Promise<void> }) | undefined;
  try {
    api = await startApi('postgres', {
      config: {
        ...keystone.octonetConfig(),
        ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb },
        nova: octonetNovaConfig(keystone.url, novaUser),
      },
    });
  } catch (error) {
    ovn.stop();
    throw error;
  }
  const server = api;
  const requests = () => server.logs().filter((line) => line.msg === 'request');
  return {
    name: 'octonet',
    label: 'octonet',
    url: server.url,
    ovn: { nb: ovn.nb, sb: ovn.sb },
    computeHost: OCTONET_CHASSIS,
    admin: adminCalls(server.url, async () => ({
      'x-auth-token': await keystone.issueToken(keystone.users.cloudAdmin),
    })),
    ownLog: {
      mark: () => requests().length,
      since: (from) => {
        const seen = requests().slice(from);
        return { calls: seen.length, ms: seen.reduce((sum, r) => sum + Number(r.ms), 0) };
      },
    },
    stop: async () => {
      await server.close();
      ovn.stop();
    },
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

interface ValidatedToken {
  token: {
    user: { id: string; name: string; domain: { id: string } };
    project?: { id: string; name: string; domain: { id: string } };
    roles?: { name: string }[];
  };
}

/**
 * authtoken's part for the anchor: the caller's token validated by Keystone (the token itself is
 * allowed to read its own validation), turned into the identity headers keystonemiddleware sets, and
 * `/v2.0` calls sent to the anchor's trusted-header pipeline `/hdr/v2.0`.
 */
function keystoneIdentity(keystone: KeystoneFixture): Prepare {
  const validated = new Map<string, Promise<Record<string, string>>>();
  const validate = async (token: string): Promise<Record<string, string>> => {
    const response = await fetch(`${keystone.url}/auth/tokens`, {
      headers: { 'x-auth-token': token, 'x-subject-token': token },
    });
    if (response.status !== 200) throw new Error(`Keystone rejected a token: ${response.status}`);
    const { token: t } = (await response.json()) as ValidatedToken;
    return {
      'x-identity-status': 'Confirmed',
      'x-user-id': t.user.id,
      'x-user-name': t.user.name,
      'x-user-domain-id': t.user.domain.id,
      ...(t.project
        ? { 'x-project-id': t.project.id, 'x-project-name': t.project.name, 'x-project-domain-id': t.project.domain.id }
        : {}),
      'x-roles': (t.roles ?? []).map((r) => r.name).join(','),
    };
  };
  return async (request: Forwarded): Promise<Forwarded> => {
    const token = request.headers['x-auth-token'];
    if (typeof token !== 'string' || !request.path.startsWith('/v2.0')) return request;
    let identity = validated.get(token);
    if (!identity) {
      identity = validate(token);
      validated.set(token, identity);
      identity.catch(() => validated.delete(token));
    }
    return { path: `/hdr${request.path}`, headers: { ...request.headers, ...(await identity) } };
  };
}

/** The anchor, started with its (idempotent) start.sh if it does not answer; never stopped here. */
export async function attachAnchor(repoRoot: string, keystone: KeystoneFixture): Promise<NeutronSide> {
  if (!(await answers(`${ANCHOR_URL}/v2.0/networks?limit=1`))) {
    const runnable = anchorRunnable(repoRoot);
    if (!runnable.runnable) throw new Error(`the Neutron anchor does not run and cannot start: ${runnable.reason}`);
    const started = spawnSync('bash', [join(anchorDir(repoRoot), 'start.sh')], { encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`anchor start.sh failed:\n${started.stderr}${started.stdout}`);
  }
  return {
    name: 'anchor',
    label: 'Neutron Zed',
    url: ANCHOR_URL,
    ovn: ANCHOR_OVN,
    computeHost: ANCHOR_CHASSIS,
    admin: adminCalls(ANCHOR_URL, () => Promise.resolve({})),
    prepare: keystoneIdentity(keystone),
    stop: () => Promise.resolve(),
  };
}

/** How long a network's last ports (Nova's, unplugged after the server is gone) may take to go. */
const NETWORK_DELETE_GIVE_UP_MS = 60_000;

/**
 * Deletes networks the bench made, with whatever ports are left on them (Octavia's and Nova's are
 * normally gone by then; Neutron's own DHCP/metadata ports go with the network), retrying while
 * Neutron still says the network is in use. Returns what it could not delete.
 */
export async function removeNetworks(admin: AdminCalls, networkIds: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const id of networkIds) {
    const giveUpAt = Date.now() + NETWORK_DELETE_GIVE_UP_MS;
    for (;;) {
      const { ports } = await admin.get(`ports?network_id=${id}&fields=id&fields=device_owner`);
      for (const port of ports as { id: string; device_owner: string }[]) {
        if (port.device_owner !== 'network:dhcp' && port.device_owner !== 'network:distributed') {
          await admin.delete(`ports/${port.id}`);
        }
      }
      const status = await admin.delete(`networks/${id}`);
      if (status === 204 || status === 404) break;
      if (Date.now() > giveUpAt) {
        left.push(`network ${id} (${status})`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
  return left;
}

/** Deletes the `default` security groups Neutron made for `projectIds` when they first called it. */
export async function removeDefaultSecurityGroups(admin: AdminCalls, projectIds: readonly string[]): Promise<void> {
  for (const projectId of projectIds) {
    const { security_groups } = await admin.get(`security-groups?name=default&project_id=${projectId}&fields=id`);
    for (const group of security_groups as { id: string }[]) await admin.delete(`security-groups/${group.id}`);
  }
}
