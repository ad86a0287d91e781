/**
 * Keystone v3 password authentication for the management-network client: where the settings come
 * from (`OS_*` variables, or `clouds.yaml` named by `OS_CLOUD`), the token with its service catalog
 * (to find the network endpoint), renewal before expiry, and looking up a project by name or ID.
 *
 * src/auth/keystone-client.ts is octonet's server side (validating others' tokens, no catalog, domain
 * IDs only); a client needs the catalog and domain names, so this is a separate, smaller module.
 * The password and the token never go into an error message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

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
export function keystoneSettingsFromEnvironment(env: NodeJS.ProcessEnv): KeystoneSettings {
  let auth: Record<string, string | undefined> = {};
  let region: string | undefined;
  let iface: string | undefined;
  let override: string | undefined;
  if (env.OS_CLOUD) {
    const path = cloudsYamlPath(env);
    if (!path) throw new KeystoneAuthError(`OS_CLOUD=${env.OS_CLOUD} but no clouds.yaml was found`);
    const document = parseYaml(readFileSync(path, 'utf8')) as { clouds?: Record<string, any> };
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

function domainRef(d: { id?: string; name?: string }): Record<string, string> {
  return d.id ? { id: d.id } : { name: d.name ?? 'Default' };
}

/** Holds one token and renews it a minute before it expires. */
export class KeystoneSession {
  private current: KeystoneToken | null = null;

  constructor(readonly settings: KeystoneSettings) {}

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
    const body = {
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: s.username, domain: domainRef(s.userDomain), password: s.password } },
        },
        ...(project ? { scope: { project } } : {}),
      },
    };
    let response: Response;
    try {
      response = await fetch(`${s.authUrl}/auth/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new KeystoneAuthError(`cannot reach Keystone at ${s.authUrl}: ${(error as Error).message}`);
    }
    if (response.status === 401) throw new KeystoneAuthError(`Keystone refused the credentials of user ${s.username}`);
    if (!response.ok) throw new KeystoneAuthError(`Keystone answered ${response.status} to the token request`);
    const value = response.headers.get('x-subject-token');
    const parsed = (await response.json()) as { token?: any };
    const token = parsed.token;
    if (!value || !token) throw new KeystoneAuthError('Keystone answered without a token');
    const endpoint = this.networkEndpoint(token.catalog ?? []);
    return {
      value,
      expiresAt: Date.parse(token.expires_at),
      projectId: token.project?.id ?? null,
      projectName: token.project?.name ?? null,
      roles: (token.roles ?? []).map((r: { name: string }) => r.name),
      networkEndpoint: endpoint,
    };
  }

  private networkEndpoint(catalog: any[]): string {
    if (this.settings.endpointOverride) return this.settings.endpointOverride;
    const service = catalog.find((entry) => entry.type === 'network');
    const endpoint = (service?.endpoints ?? []).find(
      (e: any) =>
        e.interface === this.settings.interface &&
        (!this.settings.regionName ||
          e.region === this.settings.regionName ||
          e.region_id === this.settings.regionName),
    );
    if (!endpoint) {
      throw new KeystoneAuthError(
        `the service catalog has no ${this.settings.interface} network endpoint${this.settings.regionName ? ` in region ${this.settings.regionName}` : ''}`,
      );
    }
    return endpoint.url as string;
  }

  /**
   * A project by ID or name: `{id, name}`, null if Keystone says it does not exist, undefined if
   * these credentials may not look (403): then the caller cannot tell and must not refuse.
   */
  async findProject(nameOrId: string): Promise<{ id: string; name: string } | null | undefined> {
    const token = await this.token();
    const get = async (path: string) => {
      const response = await fetch(`${this.settings.authUrl}${path}`, {
        headers: { 'x-auth-token': token.value, accept: 'application/json' },
      });
      if (response.status === 403 || response.status === 401) return undefined;
      if (response.status === 404) return null;
      if (!response.ok) throw new KeystoneAuthError(`Keystone answered ${response.status} to ${path.split('?')[0]}`);
      return (await response.json()) as any;
    };
    const byId = await get(`/projects/${encodeURIComponent(nameOrId)}`);
    if (byId?.project) return { id: byId.project.id, name: byId.project.name };
    const byName = await get(`/projects?name=${encodeURIComponent(nameOrId)}`);
    if (byName === undefined && byId === undefined) return undefined;
    const found = byName?.projects ?? [];
    if (found.length === 1) return { id: found[0].id, name: found[0].name };
    if (found.length > 1) throw new KeystoneAuthError(`several projects are named "${nameOrId}": give its ID`);
    return null;
  }
}
