/**
 * `auth: keystone`: the caller is whoever Keystone says the request's `X-Auth-Token` belongs to,
 * checked the way keystonemiddleware's auth_token checks it in front of Neutron.
 *
 * - No token, or one Keystone does not know (never issued, expired, revoked): 401.
 * - Keystone unreachable, or refusing octonet's own credentials: 503; the request goes no further,
 *   so nothing is written.
 * - A valid token: its user, its project (none for a domain- or system-scoped token) and its roles
 *   exactly as Keystone lists them (implied roles are already expanded there). Identity headers a
 *   client sends itself (`X-Project-Id`, `X-Roles`, ...) are never read.
 *
 * Answers are cached (`token-cache.ts`) and concurrent requests with one uncached token share one
 * validation. No token, password or Keystone response body is ever logged.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { makeContext, type RequestContext } from '../core/context.js';
import type { Authenticator } from './authenticator.js';
import { authenticationRequired, identityServiceUnavailable } from './failures.js';
import {
  KeystoneRefusedCredentials,
  KeystoneUnavailable,
  type KeystoneClient,
  type PasswordCredentials,
  type TokenIdentity,
} from './keystone-client.js';
import { ServiceToken } from './service-token.js';
import { TokenCache, tokenFingerprint } from './token-cache.js';

/**
 * Fernet tokens are about 200 characters, JWS tokens under 1 KiB. Anything longer, or with
 * characters no token has, is refused without bothering Keystone with it.
 */
const MAX_TOKEN_LENGTH = 8192;
const TOKEN_SHAPE = /^[\x21-\x7e]+$/;

export interface KeystoneAuthenticatorOptions {
  readonly client: KeystoneClient;
  readonly credentials: PasswordCredentials;
  /** `keystone.token_cache_time` in milliseconds; 0 validates every request. */
  readonly tokenCacheTtlMs: number;
  /** What the `WWW-Authenticate` header of a 401 names. */
  readonly wwwAuthenticateUri: string;
  readonly logger: Logger;
  /** Milliseconds since the epoch; a parameter so tests can move time. */
  readonly now?: () => number;
}

export class KeystoneAuthenticator implements Authenticator {
  readonly requiresCredentials = true;
  private readonly serviceToken: ServiceToken;
  private readonly cache: TokenCache<TokenIdentity>;
  /** Validations under way, by token fingerprint. */
  private readonly inFlight = new Map<string, Promise<TokenIdentity | null>>();
  private readonly now: () => number;

  constructor(private readonly options: KeystoneAuthenticatorOptions) {
    this.now = options.now ?? Date.now;
    this.serviceToken = new ServiceToken(options.client, options.credentials, this.now);
    this.cache = new TokenCache({ ttlMs: options.tokenCacheTtlMs, now: this.now });
  }

  async authenticate(headers: IncomingHttpHeaders, requestId: string): Promise<RequestContext> {
    const raw = headers['x-auth-token'];
    // keystonemiddleware strips the token: some clients send it with surrounding whitespace.
    const token = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!token || token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) {
      throw authenticationRequired(this.options.wwwAuthenticateUri);
    }
    const identity = this.cache.get(token) ?? (await this.validateOnce(token, requestId));
    if (!identity) throw authenticationRequired(this.options.wwwAuthenticateUri);
    return makeContext({
      requestId,
      userId: identity.userId,
      projectId: identity.scope.kind === 'project' ? identity.scope.id : null,
      projectName: identity.scope.kind === 'project' ? identity.scope.name : null,
      roles: identity.roles,
    });
  }

  async warmUp(): Promise<void> {
    try {
      await this.serviceToken.current();
      this.options.logger.info('keystone: service token obtained');
    } catch (error) {
      this.options.logger.error({ err: (error as Error).message }, 'keystone: cannot obtain a service token yet');
    }
  }

  private validateOnce(token: string, requestId: string): Promise<TokenIdentity | null> {
    const key = tokenFingerprint(token);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.validate(token, requestId).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Asks Keystone; null for a token it does not accept. */
  private async validate(token: string, requestId: string): Promise<TokenIdentity | null> {
    const log = this.options.logger;
    let identity: TokenIdentity | null;
    try {
      identity = await this.askKeystone(token);
    } catch (error) {
      if (error instanceof KeystoneUnavailable || error instanceof KeystoneRefusedCredentials) {
        log.error({ request_id: requestId, err: error.message }, 'keystone: cannot validate a token');
        throw identityServiceUnavailable();
      }
      throw error;
    }
    if (!identity) {
      log.info({ request_id: requestId }, 'keystone: token rejected');
      return null;
    }
    if (identity.expiresAt <= this.now()) {
      // Keystone and octonet disagree on the time; trust the stricter clock.
      log.info({ request_id: requestId }, 'keystone: token already expired by our clock');
      return null;
    }
    if (identity.hasAccessRules) {
      log.info({ request_id: requestId }, 'keystone: token restricted by access rules, which octonet does not check');
      return null;
    }
    this.cache.set(token, identity);
    return identity;
  }

  /** One validation; when Keystone refuses our service token, one more with a fresh one. */
  private async askKeystone(token: string): Promise<TokenIdentity | null> {
    const serviceToken = await this.serviceToken.current();
    try {
      return await this.options.client.validateToken(serviceToken, token);
    } catch (error) {
      if (!(error instanceof KeystoneRefusedCredentials)) throw error;
      this.serviceToken.invalidate(serviceToken);
      return await this.options.client.validateToken(await this.serviceToken.current(), token);
    }
  }
}
