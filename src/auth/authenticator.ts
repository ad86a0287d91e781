/**
 * Who is calling: the contract between the HTTP layer and the two ways octonet identifies callers
 * (`auth: noauth`, `auth: keystone`), and the choice between them from the config.
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config/config.js';
import type { RequestContext } from '../core/context.js';
import { KeystoneClient } from './keystone-client.js';
import { KeystoneAuthenticator } from './keystone.js';
import { noauthContext } from './noauth.js';

export interface Authenticator {
  /**
   * Whether a caller must prove who they are. When true, the HTTP layer serves what Neutron serves
   * outside keystonemiddleware (version discovery) without calling `authenticate`.
   */
  readonly requiresCredentials: boolean;
  /** The caller of a request, from its headers; throws `AuthenticationFailure` (failures.ts) when there is none. */
  authenticate(headers: IncomingHttpHeaders, requestId: string): RequestContext | Promise<RequestContext>;
  /** Prepares what the first request would otherwise wait for; reports problems in the log, never throws. */
  warmUp?(): Promise<void>;
}

function readPasswordFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `keystone.password_file: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  // Files written by `echo` or an editor end with a newline that is not part of the password.
  const password = text.replace(/\r?\n$/, '');
  if (!password) throw new ConfigError(`keystone.password_file: ${path} is empty`);
  return password;
}

/** The authenticator `config.auth` names. Reads the Keystone password file now, so a bad path stops the start. */
export function createAuthenticator(config: Config, logger: Logger): Authenticator {
  if (config.auth === 'noauth') {
    return {
      requiresCredentials: false,
      authenticate: (headers, requestId) => noauthContext(headers, requestId, config.noauth_default_project_id),
    };
  }
  const k = config.keystone;
  // The schema makes these required with auth: keystone; the check narrows the types.
  if (!k.url || !k.user || (!k.password_file && !k.password) || !k.project) {
    throw new ConfigError(
      'auth: keystone needs keystone.url, keystone.user, keystone.password_file and keystone.project',
    );
  }
  return new KeystoneAuthenticator({
    client: new KeystoneClient(k.url, k.timeout * 1000),
    credentials: {
      user: k.user,
      password: k.password ?? readPasswordFile(k.password_file!),
      userDomain: k.user_domain,
      project: k.project,
      projectDomain: k.project_domain,
    },
    tokenCacheTtlMs: k.token_cache_time * 1000,
    wwwAuthenticateUri: k.www_authenticate_uri ?? k.url,
    logger: logger.child({ component: 'keystone' }),
  });
}
