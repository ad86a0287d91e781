/**
 * octonet's own Keystone token, which it shows Keystone when it asks about a client's token.
 *
 * Obtained on first use, reused until shortly before it expires, and dropped when Keystone refuses
 * it (revoked, keys rotated, user disabled). Concurrent requests that need a new one share one
 * authentication. It holds the password only to re-authenticate and never logs either.
 */
import type { IssuedToken, KeystoneClient, PasswordCredentials } from './keystone-client.js';

/**
 * A token this close to its expiry is renewed before use, so that a validation never races the
 * expiry (keystoneauth's `MIN_TOKEN_LIFE_SECONDS`).
 */
export const SERVICE_TOKEN_RENEW_MARGIN_MS = 120_000;

export class ServiceToken {
  private issued: IssuedToken | null = null;
  private pending: Promise<IssuedToken> | null = null;

  constructor(
    private readonly client: KeystoneClient,
    private readonly credentials: PasswordCredentials,
    private readonly now: () => number = Date.now,
  ) {}

  /** A service token valid for a while yet; authenticates when there is none. */
  async current(): Promise<string> {
    if (this.issued && this.issued.expiresAt - SERVICE_TOKEN_RENEW_MARGIN_MS > this.now()) return this.issued.token;
    this.pending ??= this.client.issueToken(this.credentials).finally(() => (this.pending = null));
    this.issued = await this.pending;
    return this.issued.token;
  }

  /** Forgets `token` after Keystone refused it; a newer token obtained meanwhile is kept. */
  invalidate(token: string): void {
    if (this.issued?.token === token) this.issued = null;
  }
}
