/**
 * A small OpenStack Networking v2.0 client over HTTP, for the management-network operator. It works
 * against octonet or any Neutron: nothing here imports octonet's core or store.
 *
 * Two ways in:
 * - noauth (`--os-url URL`, or `OS_AUTH_TYPE=none` with `OS_ENDPOINT`): no identity headers at all.
 *   Both octonet's noauth and Neutron's stock `NoauthFakeProjectId` treat such a request as admin of
 *   the server's default project; sending `X-Project-Id` would make the real Neutron drop the
 *   project altogether (its creates then demand `tenant_id`), so we never send it and put
 *   `project_id` in bodies when the spec names a project.
 * - Keystone v3 password auth (`keystone-auth.ts`): `OS_*` variables or `clouds.yaml` (`OS_CLOUD`).
 *
 * Every request is counted (`calls.reads` for GET, `calls.writes` for the rest): the bench prints
 * them and the tests assert that a second apply writes nothing. Errors are `NeutronApiError` with
 * Neutron's own `type` and `message`. Tokens never reach an error message or a log line.
 */
import { KeystoneSession, keystoneSettingsFromEnvironment, type KeystoneSettings } from './keystone-auth.js';

/** A Neutron error answer (or a transport failure, with status 0). */
export class NeutronApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'NeutronApiError';
  }

  /** One line for a person: `POST /v2.0/ports: 409 IpAddressAlreadyAllocated: ...`. */
  describe(): string {
    return `${this.method} ${this.path}: ${this.status} ${this.type}: ${this.message}`;
  }
}

export interface CallCounts {
  reads: number;
  writes: number;
}

/** Who the client acts as, as far as it can tell. */
export interface ClientIdentity {
  readonly mode: 'noauth' | 'keystone';
  /** The project the credentials are scoped to; null in noauth (the server's default project). */
  readonly projectId: string | null;
  readonly projectName: string | null;
  readonly isAdmin: boolean;
}

export type Collection =
  'networks' | 'subnets' | 'ports' | 'routers' | 'security-groups' | 'security-group-rules' | 'agents';

/** Collection path → the body's singular key (also what reports call such an object). */
export const SINGULAR = {
  networks: 'network',
  subnets: 'subnet',
  ports: 'port',
  routers: 'router',
  'security-groups': 'security_group',
  'security-group-rules': 'security_group_rule',
  agents: 'agent',
} as const satisfies Record<Collection, string>;

export type Query = Record<string, string | readonly string[] | number | boolean>;
/** An address of a port or a router gateway. */
export interface NeutronFixedIp {
  subnet_id: string;
  ip_address: string;
}

/**
 * A Neutron object as the API returns it. Attributes vary by collection and extension: the ones
 * the reconciler reads are typed here, the rest are passed on as they came.
 */
export interface NeutronObject {
  id: string;
  name?: string;
  tags?: string[];
  status?: string;
  network_id?: string;
  mac_address?: string;
  mtu?: number;
  cidr?: string;
  security_group_id?: string;
  fixed_ips?: NeutronFixedIp[];
  'binding:host_id'?: string;
  security_group_rules?: NeutronObject[];
  external_gateway_info?: {
    network_id: string;
    enable_snat?: boolean;
    external_fixed_ips?: NeutronFixedIp[];
  } | null;
  [attribute: string]: unknown;
}

/** A Neutron answer's JSON body: resources or lists of them under their names. */
type NeutronBody = Record<string, unknown> | undefined;

export interface NeutronClientOptions {
  /** Root of the Networking API (with or without a trailing `/v2.0`). */
  readonly url: string;
  readonly identity: ClientIdentity;
  /** Extra headers per request (the token); called before each request. */
  readonly authHeaders?: () => Promise<Record<string, string>>;
  /** Called when the server answered 401: renew credentials; true if a retry can help. */
  readonly renewAuth?: () => Promise<boolean>;
  readonly keystone?: KeystoneSession;
}

export class NeutronClient {
  readonly calls: CallCounts = { reads: 0, writes: 0 };
  readonly identity: ClientIdentity;
  readonly keystone: KeystoneSession | undefined;
  private readonly base: string;

  constructor(private readonly options: NeutronClientOptions) {
    this.base = options.url.replace(/\/+$/, '').replace(/\/v2\.0$/, '') + '/v2.0';
    this.identity = options.identity;
    this.keystone = options.keystone;
  }

  /** noauth against `url`: admin of the server's default project. */
  static noauth(url: string): NeutronClient {
    return new NeutronClient({ url, identity: { mode: 'noauth', projectId: null, projectName: null, isAdmin: true } });
  }

  /** From `--os-url`, else `OS_AUTH_TYPE=none`+`OS_ENDPOINT`, else Keystone (`OS_*` / `OS_CLOUD`). */
  static async fromEnvironment(osUrl?: string, env: NodeJS.ProcessEnv = process.env): Promise<NeutronClient> {
    if (osUrl) return NeutronClient.noauth(osUrl);
    if ((env.OS_AUTH_TYPE === 'none' || env.OS_AUTH_TYPE === 'noauth') && (env.OS_ENDPOINT || env.OS_URL)) {
      return NeutronClient.noauth((env.OS_ENDPOINT || env.OS_URL)!);
    }
    const settings: KeystoneSettings = keystoneSettingsFromEnvironment(env);
    const session = new KeystoneSession(settings);
    const token = await session.token();
    return new NeutronClient({
      url: settings.endpointOverride ?? token.networkEndpoint,
      identity: {
        mode: 'keystone',
        projectId: token.projectId,
        projectName: token.projectName,
        isAdmin: token.roles.includes('admin'),
      },
      keystone: session,
      authHeaders: async () => ({ 'x-auth-token': (await session.token()).value }),
      renewAuth: async () => {
        session.forget();
        return true;
      },
    });
  }

  resetCounts(): void {
    this.calls.reads = 0;
    this.calls.writes = 0;
  }

  async request(method: string, path: string, body?: unknown, retried = false): Promise<NeutronBody> {
    if (method === 'GET') this.calls.reads++;
    else this.calls.writes++;
    const headers: Record<string, string> = { accept: 'application/json', ...(await this.options.authHeaders?.()) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.base + path, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
      throw new NeutronApiError(0, 'ConnectionFailed', `cannot reach ${this.base}: ${cause}`, method, path);
    }
    const text = await response.text();
    if (response.status === 401 && !retried && this.options.renewAuth && (await this.options.renewAuth())) {
      return this.request(method, path, body, true);
    }
    if (!response.ok) {
      let type = `HTTP${response.status}`;
      let message = text.slice(0, 300) || response.statusText;
      try {
        const parsed = JSON.parse(text) as { NeutronError?: { type?: string; message?: string } };
        if (parsed.NeutronError) {
          type = parsed.NeutronError.type ?? type;
          message = parsed.NeutronError.message ?? message;
        }
      } catch {
        // Not JSON (a proxy's HTML page): keep the start of the text.
      }
      throw new NeutronApiError(response.status, type, message, method, path);
    }
    if (!text) return undefined;
    try {
      return JSON.parse(text) as NeutronBody;
    } catch {
      throw new NeutronApiError(response.status, 'BadResponse', 'the answer is not JSON', method, path);
    }
  }

  async list<T = NeutronObject>(collection: Collection, query: Query = {}): Promise<T[]> {
    const key = collection.replace(/-/g, '_');
    const body = await this.request('GET', `/${collection}${queryString(query)}`);
    return (body?.[key] ?? []) as T[];
  }

  /** The object, or null if it does not exist (404). */
  async show<T = NeutronObject>(collection: Collection, id: string): Promise<T | null> {
    try {
      const body = await this.request('GET', `/${collection}/${encodeURIComponent(id)}`);
      return body?.[SINGULAR[collection]] as T;
    } catch (error) {
      if (error instanceof NeutronApiError && error.status === 404) return null;
      throw error;
    }
  }

  async create<T = NeutronObject>(collection: Collection, attributes: Record<string, unknown>): Promise<T> {
    const key = SINGULAR[collection];
    const body = await this.request('POST', `/${collection}`, { [key]: attributes });
    return body?.[key] as T;
  }

  async update<T = NeutronObject>(collection: Collection, id: string, attributes: Record<string, unknown>): Promise<T> {
    const key = SINGULAR[collection];
    const body = await this.request('PUT', `/${collection}/${encodeURIComponent(id)}`, { [key]: attributes });
    return body?.[key] as T;
  }

  /** Deletes; false if it was already gone (a level-triggered caller does not care who won). */
  async delete(collection: Collection, id: string): Promise<boolean> {
    try {
      await this.request('DELETE', `/${collection}/${encodeURIComponent(id)}`);
      return true;
    } catch (error) {
      if (error instanceof NeutronApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** Replaces the object's tags (`PUT /{collection}/{id}/tags`). */
  async setTags(collection: Collection, id: string, tags: readonly string[]): Promise<void> {
    await this.request('PUT', `/${collection}/${encodeURIComponent(id)}/tags`, { tags: [...tags].sort() });
  }

  async addRouterInterface(routerId: string, body: { subnet_id?: string; port_id?: string }): Promise<NeutronBody> {
    return this.request('PUT', `/routers/${encodeURIComponent(routerId)}/add_router_interface`, body);
  }

  async removeRouterInterface(routerId: string, body: { subnet_id?: string; port_id?: string }): Promise<NeutronBody> {
    return this.request('PUT', `/routers/${encodeURIComponent(routerId)}/remove_router_interface`, body);
  }
}

function queryString(query: Query): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}
