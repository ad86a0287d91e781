/**
 * Keystone v3 password authentication for the management-network client: where the settings come
 * from (`OS_*` variables, or `clouds.yaml` named by `OS_CLOUD`), the network endpoint from the
 * token's service catalog, renewal before expiry, and looking up a project by name or ID.
 *
 * The password call itself is octonet's one Keystone password client (src/auth/keystone-client.ts,
 * which imports nothing from core or store), asked for the catalog and with domains by name.
 * The password and the token never go into an error message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  KeystoneClient,
  KeystoneRefusedCredentials,
  KeystoneUnavailable,
  type CatalogEntry,
  type DomainRef,
} from '../auth/keystone-client.js';

/** How long a Keystone call may take before the client gives up on it. */
const KEYSTONE_TIMEOUT_MS = 30_000;

export class KeystoneAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeystoneAuthError';
  }
}

export interface KeystoneSettings {
  readonly authUrl: string;
  readonly username: string;
  readonly password: string;
  readonly userDomain: { id?: string; name?: string };
  readonly project: { id?: string; name?: string; domainId?: string; domainName?: string };
  readonly regionName?: string;
  /** public (default), internal or admin. */
  readonly interface: string;
  /** `OS_ENDPOINT_OVERRIDE` / `network_endpoint_override`: skip the catalog. */
  readonly endpointOverride?: string;
}

export interface KeystoneToken {
  readonly value: string;
  readonly expiresAt: number;
  readonly projectId: string | null;
  readonly projectName: string | null;
  readonly roles: readonly string[];
  readonly networkEndpoint: string;
  /** The token's service catalog (other services' endpoints, e.g. Octavia's `load-balancer`). */
  readonly catalog: readonly CatalogEntry[];
}

/** The first clouds.yaml that exists, in openstacksdk's order. */
function cloudsYamlPath(env: NodeJS.ProcessEnv): string | undefined {
  const candidates = [
    env.OS_CLIENT_CONFIG_FILE,
    join(process.cwd(), 'clouds.yaml'),
    join(env.HOME ?? homedir(), '.config/openstack/clouds.yaml'),
    '/etc/openstack/clouds.yaml',
  ].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p));
}

/** Settings from `OS_CLOUD` (clouds.yaml) overlaid with `OS_*` variables, as the openstack CLI does. */
/** What octonet reads of a `clouds.yaml` entry (as openstacksdk names it). */
interface CloudEntry {
  auth?: Record<string, string | undefined>;
  region_name?: string;
  interface?: string;
  network_endpoint_override?: string;
}

/** A project as Keystone's `/v3/projects` answers it. */
interface KeystoneProject {
  id: string;
  name: string;
}

export function keystoneSettingsFromEnvironment(env: NodeJS.ProcessEnv): KeystoneSettings {
  let auth: Record<string, string | undefined> = {};
  let region: string | undefined;
  let iface: string | undefined;
  let override: string | undefined;
  if (env.OS_CLOUD) {
    const path = cloudsYamlPath(env);
    if (!path) throw new KeystoneAuthError(`OS_CLOUD=${env.OS_CLOUD} but no clouds.yaml was found`);
    const document = parseYaml(readFileSync(path, 'utf8')) as {
      clouds?: Record<string, CloudEntry | undefined>;
    } | null;
    const cloud = document?.clouds?.[env.OS_CLOUD];
    if (!cloud) throw new KeystoneAuthError(`cloud "${env.OS_CLOUD}" is not in ${path}`);
    auth = { ...(cloud.auth ?? {}) };
    region = cloud.region_name;
    iface = cloud.interface;
    override = cloud.network_endpoint_override;
  }
  const pick = (envKey: string, authKey: string) => env[envKey] || auth[authKey];
  const authUrl = pick('OS_AUTH_URL', 'auth_url');
  const username = pick('OS_USERNAME', 'username');
  const password = pick('OS_PASSWORD', 'password');
  const missing = [!authUrl && 'OS_AUTH_URL', !username && 'OS_USERNAME', !password && 'OS_PASSWORD'].filter(Boolean);
  if (missing.length > 0) {
    throw new KeystoneAuthError(
      `no Neutron endpoint: give --os-url URL (noauth), or Keystone credentials (missing ${missing.join(', ')}; or set OS_CLOUD)`,
    );
  }
  const base = authUrl!.replace(/\/+$/, '');
  return {
    authUrl: /\/v3$/.test(base) ? base : `${base}/v3`,
    username: username!,
    password: password!,
    userDomain: {
      id: pick('OS_USER_DOMAIN_ID', 'user_domain_id'),
      name:
        pick('OS_USER_DOMAIN_NAME', 'user_domain_name') ??
        (pick('OS_USER_DOMAIN_ID', 'user_domain_id') ? undefined : 'Default'),
    },
    project: {
      id: pick('OS_PROJECT_ID', 'project_id') ?? pick('OS_TENANT_ID', 'tenant_id'),
      name: pick('OS_PROJECT_NAME', 'project_name') ?? pick('OS_TENANT_NAME', 'tenant_name'),
      domainId: pick('OS_PROJECT_DOMAIN_ID', 'project_domain_id'),
      domainName: pick('OS_PROJECT_DOMAIN_NAME', 'project_domain_name'),
    },
    ...(env.OS_REGION_NAME || region ? { regionName: env.OS_REGION_NAME || region } : {}),
    interface: (env.OS_INTERFACE || iface || 'public').replace(/URL$/, ''),
    ...(env.OS_ENDPOINT_OVERRIDE || override ? { endpointOverride: env.OS_ENDPOINT_OVERRIDE || override } : {}),
  };
}

function domainRef(d: { id?: string; name?: string }): DomainRef {
  return d.id ? { id: d.id } : { name: d.name ?? 'Default' };
}

/** Holds one token and renews it a minute before it expires. */
export class KeystoneSession {
  private current: KeystoneToken | null = null;
  private readonly keystone: KeystoneClient;

  constructor(readonly settings: KeystoneSettings) {
    this.keystone = new KeystoneClient(settings.authUrl, KEYSTONE_TIMEOUT_MS);
  }

  forget(): void {
    this.current = null;
  }

  async token(): Promise<KeystoneToken> {
    if (this.current && this.current.expiresAt - Date.now() > 60_000) return this.current;
    this.current = await this.issue();
    return this.current;
  }

  private async issue(): Promise<KeystoneToken> {
    const s = this.settings;
    const project = s.project.id
      ? { id: s.project.id }
      : s.project.name
        ? { name: s.project.name, domain: domainRef({ id: s.project.domainId, name: s.project.domainName }) }
        : undefined;
    try {
      const issued = await this.keystone.issuePasswordToken({
        user: s.username,
        password: s.password,
        userDomain: domainRef(s.userDomain),
        ...(project ? { project } : {}),
        catalog: true,
      });
      return {
        value: issued.token,
        expiresAt: issued.expiresAt,
        projectId: issued.project?.id ?? null,
        projectName: issued.project?.name ?? null,
        roles: issued.roles,
        networkEndpoint: this.networkEndpoint(issued.catalog),
        catalog: issued.catalog,
      };
    } catch (error) {
      // One error class for the commands to report (the messages name the user, never the password).
      if (error instanceof KeystoneRefusedCredentials || error instanceof KeystoneUnavailable) {
        throw new KeystoneAuthError(error.message);
      }
      throw error;
    }
  }

  private networkEndpoint(catalog: readonly CatalogEntry[]): string {
    if (this.settings.endpointOverride) return this.settings.endpointOverride;
    return this.catalogEndpoint(catalog, 'network');
  }

  /** The endpoint of a service type (e.g. `load-balancer`) for the settings' interface and region. */
  async serviceEndpoint(type: string): Promise<string> {
    return this.catalogEndpoint((await this.token()).catalog, type);
  }

  private catalogEndpoint(catalog: readonly CatalogEntry[], type: string): string {
    const { interface: wanted, regionName } = this.settings;
    const service = catalog.find((entry) => entry.type === type);
    const endpoint = (service?.endpoints ?? []).find(
      (e) => e.interface === wanted && (!regionName || e.region === regionName || e.region_id === regionName),
    );
    if (!endpoint) {
      throw new KeystoneAuthError(
        `the service catalog has no ${wanted} ${type} endpoint${regionName ? ` in region ${regionName}` : ''}`,
      );
    }
    return endpoint.url;
  }

  /**
   * A project by ID or name: `{id, name}`, null if Keystone says it does not exist, undefined if
   * these credentials may not look (403): then the caller cannot tell and must not refuse.
   */
  async findProject(nameOrId: string): Promise<{ id: string; name: string } | null | undefined> {
    const token = await this.token();
    const get = async (path: string) => {
      const what = path.split('?')[0];
      try {
        // The signal covers the body too: a Keystone that stalls mid-answer is an error, not a hang.
        const response = await fetch(`${this.settings.authUrl}${path}`, {
          headers: { 'x-auth-token': token.value, accept: 'application/json' },
          signal: AbortSignal.timeout(KEYSTONE_TIMEOUT_MS),
        });
        if (response.status === 403 || response.status === 401) return undefined;
        if (response.status === 404) return null;
        if (!response.ok) throw new KeystoneAuthError(`Keystone answered ${response.status} to ${what}`);
        return (await response.json()) as { project?: KeystoneProject; projects?: KeystoneProject[] };
      } catch (error) {
        const name = (error as Error).name;
        if (name !== 'TimeoutError' && name !== 'AbortError') throw error;
        throw new KeystoneAuthError(`Keystone did not answer ${what} within ${KEYSTONE_TIMEOUT_MS / 1000} s`);
      }
    };
    const byId = await get(`/projects/${encodeURIComponent(nameOrId)}`);
    if (byId?.project) return { id: byId.project.id, name: byId.project.name };
    const byName = await get(`/projects?name=${encodeURIComponent(nameOrId)}`);
    if (byName === undefined && byId === undefined) return undefined;
    const found = byName?.projects ?? [];
    if (found.length === 1) return { id: found[0]!.id, name: found[0]!.name };
    if (found.length > 1) throw new KeystoneAuthError(`several projects are named "${nameOrId}": give its ID`);
    return null;
  }
}
