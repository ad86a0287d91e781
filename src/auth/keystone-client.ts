/**
 * The two Keystone v3 calls token validation needs: issue a token for a user with a password
 * (`POST /auth/tokens`) and validate someone else's token with it (`GET /auth/tokens`). The
 * password call is octonet's one Keystone password client: the management-network client
 * (src/mgmtnet/keystone-auth.ts) uses it too, with domains by name and the service catalog.
 *
 * This module turns Keystone's answers into values and two error classes; it keeps no state and
 * decides nothing about callers. Tokens and passwords go into request headers and bodies only:
 * never into an error message, since those end up in logs.
 */
import { z } from 'zod';

export interface PasswordCredentials {
  readonly user: string;
  readonly password: string;
  /** Domain ID of the user. */
  readonly userDomain: string;
  /** Name of the project to scope the token to. */
  readonly project: string;
  /** Domain ID of the project. */
  readonly projectDomain: string;
}

export interface IssuedToken {
  readonly token: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** A domain by ID, or by name. */
export type DomainRef = { readonly id: string } | { readonly name: string };

/** Password authentication in any of Keystone's forms (`PasswordCredentials` is the server's). */
export interface PasswordAuth {
  readonly user: string;
  readonly password: string;
  readonly userDomain: DomainRef;
  /** The project to scope the token to; absent: an unscoped token. */
  readonly project?: { readonly id: string } | { readonly name: string; readonly domain: DomainRef };
  /** Return the service catalog (a client finding an endpoint); default: `?nocatalog`. */
  readonly catalog?: boolean;
}

export interface CatalogEntry {
  readonly type: string;
  readonly endpoints: readonly { interface: string; region?: string | null; region_id?: string | null; url: string }[];
}

/** A token from password authentication, with what its body says about it. */
export interface PasswordToken extends IssuedToken {
  readonly project: { readonly id: string; readonly name: string | null } | null;
  readonly roles: readonly string[];
  /** Empty unless asked for. */
  readonly catalog: readonly CatalogEntry[];
}

/** What a valid token says about its bearer. */
export interface TokenIdentity {
  readonly userId: string;
  readonly userName: string | null;
  /** Exactly one of project, domain, system, or none of them (an unscoped token). */
  readonly scope:
    | { readonly kind: 'project'; readonly id: string; readonly name: string | null; readonly domainId: string | null }
    | { readonly kind: 'domain'; readonly id: string; readonly name: string | null }
    | { readonly kind: 'system' }
    | { readonly kind: 'unscoped' };
  /** Role names as Keystone gives them: implied roles already expanded. */
  readonly roles: readonly string[];
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
  /** An application credential restricted to listed API calls, which octonet cannot check. */
  readonly hasAccessRules: boolean;
}

/** Keystone could not be asked: connection refused, timeout, a 5xx or an answer we cannot read. */
export class KeystoneUnavailable extends Error {}

/** Keystone refused our own credentials (401): the service user's password or the service token. */
export class KeystoneRefusedCredentials extends Error {}

const named = z.object({ id: z.string(), name: z.string().optional() });

const tokenBodySchema = z.object({
  token: z.object({
    expires_at: z.string(),
    user: named,
    project: named.extend({ domain: named.optional() }).optional(),
    domain: named.optional(),
    system: z.record(z.string(), z.unknown()).optional(),
    roles: z.array(z.object({ name: z.string() })).default([]),
    application_credential: z.object({ access_rules: z.array(z.unknown()).optional() }).optional(),
    catalog: z
      .array(
        z.object({
          type: z.string(),
          endpoints: z.array(
            z.object({
              interface: z.string(),
              region: z.string().nullish(),
              region_id: z.string().nullish(),
              url: z.string(),
            }),
          ),
        }),
      )
      .optional(),
  }),
});

const describeDomain = (d: DomainRef) => ('id' in d ? d.id : d.name);

/** `user u (domain d) for project p (domain e)`: who, never the password. */
function describeAuth(auth: PasswordAuth): string {
  const p = auth.project;
  const project = !p
    ? ''
    : 'id' in p
      ? ` for project ${p.id}`
      : ` for project ${p.name} (domain ${describeDomain(p.domain)})`;
  return `user ${auth.user} (domain ${describeDomain(auth.userDomain)})${project}`;
}

/**
 * The access-rules version keystonemiddleware announces; without it Keystone refuses to validate
 * an application-credential token that carries access rules, with it such a token comes back
 * with its rules (and is then refused here, as keystonemiddleware does without a `service_type`).
 */
const ACCESS_RULES_VERSION = '1.0';

function parseExpiry(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new KeystoneUnavailable(`Keystone sent an unreadable expires_at: ${value}`);
  return ms;
}

export class KeystoneClient {
  /** `url` is the v3 root, e.g. `http://keystone:5000/v3`. */
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  private async call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    try {
      return await fetch(this.url.replace(/\/+$/, '') + path, {
        method,
        headers: { accept: 'application/json', ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer in ${this.timeoutMs} ms`
          : (cause?.code ?? cause?.message ?? (error as Error).message);
      throw new KeystoneUnavailable(`cannot reach Keystone at ${this.url}: ${reason}`);
    }
  }

  /**
   * The answer's JSON, or null when it is not JSON. The call's timeout covers the body too: a body
   * that stops arriving is Keystone unavailable (503), never a token Keystone does not know (401).
   */
  private async json(response: Response): Promise<unknown> {
    try {
      return await response.json();
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new KeystoneUnavailable(`cannot reach Keystone at ${this.url}: no answer in ${this.timeoutMs} ms`);
      }
      return null;
    }
  }

  /** A project-scoped token for the service user's `credentials` (password authentication). */
  async issueToken(credentials: PasswordCredentials): Promise<IssuedToken> {
    const { token, expiresAt } = await this.issuePasswordToken({
      user: credentials.user,
      password: credentials.password,
      userDomain: { id: credentials.userDomain },
      project: { name: credentials.project, domain: { id: credentials.projectDomain } },
    });
    return { token, expiresAt };
  }

  /** A token for `auth` (password authentication), with its project, roles and (if asked) catalog. */
  async issuePasswordToken(auth: PasswordAuth): Promise<PasswordToken> {
    const response = await this.call(
      'POST',
      auth.catalog ? '/auth/tokens' : '/auth/tokens?nocatalog',
      {},
      {
        auth: {
          identity: {
            methods: ['password'],
            password: { user: { name: auth.user, domain: auth.userDomain, password: auth.password } },
          },
          ...(auth.project ? { scope: { project: auth.project } } : {}),
        },
      },
    );
    if (response.status === 401) {
      await response.body?.cancel();
      throw new KeystoneRefusedCredentials(`Keystone refused the password of ${describeAuth(auth)}`);
    }
    if (response.status !== 201) {
      await response.body?.cancel();
      throw new KeystoneUnavailable(
        `Keystone answered ${response.status} to the password authentication of user ${auth.user}`,
      );
    }
    const token = response.headers.get('x-subject-token');
    const parsed = tokenBodySchema.safeParse(await this.json(response));
    if (!token || !parsed.success) throw new KeystoneUnavailable('Keystone issued a token octonet cannot read');
    const t = parsed.data.token;
    return {
      token,
      expiresAt: parseExpiry(t.expires_at),
      project: t.project ? { id: t.project.id, name: t.project.name ?? null } : null,
      roles: t.roles.map((r) => r.name),
      catalog: t.catalog ?? [],
    };
  }

  /**
   * Who `subjectToken` belongs to, asked with `serviceToken`; null when Keystone does not know it
   * (never issued, expired or revoked: Keystone answers 404 to all three).
   */
  async validateToken(serviceToken: string, subjectToken: string): Promise<TokenIdentity | null> {
    const response = await this.call('GET', '/auth/tokens?nocatalog', {
      'x-auth-token': serviceToken,
      'x-subject-token': subjectToken,
      'openstack-identity-access-rules': ACCESS_RULES_VERSION,
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status === 401) {
      await response.body?.cancel();
      throw new KeystoneRefusedCredentials('Keystone refused the service token');
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      // 403 lands here too: the service user lacks the role to validate tokens, which no retry fixes
      // but which is the operator's to repair, not the client's.
      throw new KeystoneUnavailable(`Keystone answered ${response.status} to a token validation`);
    }
    const parsed = tokenBodySchema.safeParse(await this.json(response));
    if (!parsed.success) return null;
    const t = parsed.data.token;
    return {
      userId: t.user.id,
      userName: t.user.name ?? null,
      scope: t.project
        ? { kind: 'project', id: t.project.id, name: t.project.name ?? null, domainId: t.project.domain?.id ?? null }
        : t.domain
          ? { kind: 'domain', id: t.domain.id, name: t.domain.name ?? null }
          : t.system
            ? { kind: 'system' }
            : { kind: 'unscoped' },
      roles: t.roles.map((r) => r.name),
      expiresAt: parseExpiry(t.expires_at),
      hasAccessRules: t.application_credential?.access_rules !== undefined,
    };
  }

  /**
   * Revokes `token` with itself (a user may always revoke their own token); true when Keystone
   * revoked it or no longer knows it (404), false for any other answer.
   */
  async revokeToken(token: string): Promise<boolean> {
    const response = await this.call('DELETE', '/auth/tokens', { 'x-auth-token': token, 'x-subject-token': token });
    await response.body?.cancel();
    return response.status === 204 || response.status === 404;
  }
}
