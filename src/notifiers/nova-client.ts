/**
 * The HTTP side of Nova's external events: a Keystone token for the `[nova]` user (octonet's one
 * Keystone password client, `auth/keystone-client.ts`), the compute endpoint from the token's
 * catalog (service type `compute`, `endpoint_type` as the interface, `region_name`), and
 * `POST <compute>/os-server-external-events` with microversion 2.1, as novaclient sends it.
 *
 * It answers what happened and decides nothing: retrying and logging are `nova.ts`'s. The token and
 * the password go into headers and bodies only, never into an error message.
 */
import { readFileSync } from 'node:fs';
import { KeystoneClient, type CatalogEntry, type PasswordToken } from '../auth/keystone-client.js';
import type { NovaConfig } from '../config/config.js';

/** The four names Nova's 2.1 schema accepts (`additionalProperties: false`: nothing else is sent). */
export type NovaEventName = 'network-vif-plugged' | 'network-vif-unplugged' | 'network-vif-deleted' | 'network-changed';

export interface NovaEvent {
  readonly name: NovaEventName;
  readonly server_uuid: string;
  /** The port id. */
  readonly tag: string;
  /** Only status events carry one; Nova defaults the others to `completed`. */
  readonly status?: 'completed' | 'failed';
}

/** Nova could not be asked (connection refused, timeout): worth another try. */
export class NovaUnreachable extends Error {}

/** A token older than this margin before its expiry is renewed first (keystoneauth's margin). */
const RENEW_MARGIN_MS = 120_000;

/** The first line of a password file, as `keystone.password_file` is read. */
export function readPasswordFile(path: string): string {
  return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
}

export class NovaClient {
  private readonly keystone: KeystoneClient;
  private issued: PasswordToken | null = null;

  constructor(
    private readonly config: NovaConfig & { auth_url: string },
    private readonly password: string,
  ) {
    this.keystone = new KeystoneClient(config.auth_url, config.timeout * 1000);
  }

  /** Drops the token (Nova answered 401: revoked or expired early). */
  forgetToken(): void {
    this.issued = null;
  }

  private async token(): Promise<PasswordToken> {
    if (this.issued && this.issued.expiresAt - RENEW_MARGIN_MS > Date.now()) return this.issued;
    const c = this.config;
    this.issued = await this.keystone.issuePasswordToken({
      user: c.username,
      password: this.password,
      userDomain: { name: c.user_domain_name },
      project: { name: c.project_name, domain: { name: c.project_domain_name } },
      catalog: c.endpoint_override === undefined,
    });
    return this.issued;
  }

  /** The compute endpoint in `catalog` for the configured interface and region. */
  private endpoint(catalog: readonly CatalogEntry[]): string {
    const { endpoint_override: override, endpoint_type: wanted, region_name: region } = this.config;
    if (override) return override;
    const found = catalog
      .filter((entry) => entry.type === 'compute')
      .flatMap((entry) => entry.endpoints)
      .find((e) => e.interface === wanted && (!region || e.region === region || e.region_id === region));
    if (!found) {
      throw new Error(`the service catalog has no ${wanted} compute endpoint${region ? ` in region ${region}` : ''}`);
    }
    return found.url;
  }

  /** Posts one batch; resolves Nova's status and body (JSON, or null). Keystone's errors pass through. */
  async postEvents(events: readonly NovaEvent[]): Promise<{ status: number; body: unknown }> {
    const token = await this.token();
    const url = `${this.endpoint(token.catalog).replace(/\/+$/, '')}/os-server-external-events`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-auth-token': token.token,
          'x-openstack-nova-api-version': '2.1',
        },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(this.config.timeout * 1000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      const reason = (error as Error).name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? 'failed');
      throw new NovaUnreachable(`cannot reach Nova at ${url}: ${reason}`);
    }
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    return { status: response.status, body };
  }
}
