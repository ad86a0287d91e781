/**
 * The answers a request gets when its caller cannot be established.
 *
 * They are keystonemiddleware's, not Neutron's `NeutronError`: in Neutron such a request never
 * reaches Neutron's code, keystonemiddleware in front of it answers. The bodies and headers below
 * are what keystonemiddleware 10.1 (Zed) sends in Neutron's pipeline with `Accept: application/json`,
 * byte for byte (`Content-Type: application/json`, no charset; the request id header is added by
 * the HTTP layer as oslo's request_id middleware does).
 */

/** A request that cannot be served because its caller is unknown: the complete HTTP answer. */
export class AuthenticationFailure extends Error {
  constructor(
    readonly status: 401 | 503,
    readonly headers: Readonly<Record<string, string>>,
    /** JSON text, spaced as Python's `json.dumps` spaces it, so that even Content-Length matches. */
    readonly body: string,
  ) {
    super(`authentication failed (${status})`);
  }
}

/** No token, or one Keystone does not know (keystonemiddleware's `HTTPUnauthorized`). */
export function authenticationRequired(wwwAuthenticateUri: string): AuthenticationFailure {
  return new AuthenticationFailure(
    401,
    { 'www-authenticate': `Keystone uri="${wwwAuthenticateUri}"` },
    '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}',
  );
}

/** Keystone could not be asked (webob's `HTTPServiceUnavailable` as keystonemiddleware raises it). */
export function identityServiceUnavailable(): AuthenticationFailure {
  return new AuthenticationFailure(
    503,
    {},
    '{"message": "The server is currently unavailable. Please try again at a later time.<br /><br />\\nThe Keystone service is temporarily unavailable.\\n\\n", "code": "503 Service Unavailable", "title": "Service Unavailable"}',
  );
}
