/**
 * Who is looking at the topology page. In `auth: keystone` mode a visitor signs in with Keystone
 * credentials, which octonet sends to Keystone; the token Keystone issues stays here, in memory,
 * keyed by a random session id that the browser holds in an HttpOnly, SameSite=Strict cookie
 * (scripts cannot read it, other sites cannot send it). Each request's context comes from that
 * token through the same authenticator as the API's (`X-Auth-Token`), so the page sees exactly
 * what the API would show. Signing out revokes the token at Keystone. In noauth mode there is no
 * sign-in: the page sees what an admin sees, as the API does without identity headers.
 *
 * Sessions live in this process only: a restart (or another replica) asks the visitor to sign in
 * again. Tokens and passwords are never logged.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Authenticator } from '../auth/authenticator.js';
import {
  KeystoneRefusedCredentials,
  KeystoneUnavailable,
  type KeystoneClient,
  type PasswordToken,
} from '../auth/keystone-client.js';
import type { RequestContext } from '../core/context.js';

export const SESSION_COOKIE = 'octonet_session';

export interface SignInForm {
  readonly username: string;
  readonly password: string;
  readonly project: string;
  /** The domain (by name) of both the user and the project; Keystone's `Default` if empty. */
  readonly domain: string;
}

interface Session {
  readonly token: string;
  readonly expiresAt: number;
  readonly user: string;
  readonly project: string;
}

/** Why a sign-in failed, for the form: wrong credentials (401) or Keystone away (503). */
export class SignInFailure extends Error {
  constructor(
    readonly status: 401 | 503,
    message: string,
  ) {
    super(message);
  }
}

/** The cookie value of a request, if it carries one of ours. */
export function sessionIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}

export function sessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  const attributes = ['Path=/ui', 'HttpOnly', 'SameSite=Strict', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`];
  return [`${SESSION_COOKIE}=${id}`, ...attributes, ...(secure ? ['Secure'] : [])].join('; ');
}

export class KeystoneSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly keystone: KeystoneClient,
    private readonly authenticator: Authenticator,
    private readonly now: () => number = Date.now,
  ) {}

  /** Asks Keystone for a project-scoped token; resolves the new session's id and lifetime (seconds). */
  async signIn(form: SignInForm): Promise<{ id: string; maxAge: number }> {
    this.forgetExpired();
    const domain = { name: form.domain || 'Default' };
    let issued: PasswordToken;
    try {
      issued = await this.keystone.issuePasswordToken({
        user: form.username,
        password: form.password,
        userDomain: domain,
        project: { name: form.project, domain },
      });
    } catch (error) {
      if (error instanceof KeystoneRefusedCredentials) {
        throw new SignInFailure(401, 'Keystone refused this user, password, project or domain.');
      }
      if (error instanceof KeystoneUnavailable) throw new SignInFailure(503, 'Keystone cannot be reached.');
      throw error;
    }
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, {
      token: issued.token,
      expiresAt: issued.expiresAt,
      user: form.username,
      project: issued.project?.name ?? form.project,
    });
    return { id, maxAge: (issued.expiresAt - this.now()) / 1000 };
  }

  /** The caller behind a session (the API's authenticator decides); throws its 401/503 failures. */
  async context(id: string | undefined, requestId: string): Promise<RequestContext | undefined> {
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session || session.expiresAt <= this.now()) return undefined;
    return this.authenticator.authenticate({ 'x-auth-token': session.token }, requestId);
  }

  /** The user and project names a session signed in with, for the page header. */
  describe(id: string | undefined): { user: string; project: string } | undefined {
    const session = id === undefined ? undefined : this.sessions.get(id);
    return session && { user: session.user, project: session.project };
  }

  /** Ends a session and revokes its token; true when there was one. Keystone being away does not keep it. */
  async signOut(id: string | undefined): Promise<boolean> {
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (!session || id === undefined) return false;
    this.sessions.delete(id);
    try {
      await this.keystone.revokeToken(session.token);
    } catch (error) {
      if (!(error instanceof KeystoneUnavailable)) throw error;
    }
    return true;
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}
