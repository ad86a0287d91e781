/**
 * The Keystone authenticator against a fake Keystone (a plain HTTP server whose answers each test
 * sets), with a clock the test moves: the service token's life cycle, the cache, expiry, and every
 * way Keystone can fail. The real Keystone is exercised in test/auth/.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { AuthenticationFailure } from './failures.js';
import { KeystoneAuthenticator } from './keystone.js';
import { KeystoneClient } from './keystone-client.js';

const MINUTE = 60_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers `POST /v3/auth/tokens` with service tokens and `GET` with whatever `tokens` holds. */
class FakeKeystone {
  server!: Server;
  url = '';
  seen: Seen[] = [];
  /** Tokens it knows, with their body; absent means 404. */
  tokens = new Map<string, object>();
  /** Service tokens it issued and still accepts. */
  serviceTokens = new Set<string>();
  serviceTokenLifetimeMs = 60 * MINUTE;
  now = () => T0;
  /** Overrides the answer to the next requests, in order; null keeps the usual answer. */
  override: (((req: Seen, res: ServerResponse) => void) | null)[] = [];
  private issued = 0;

  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const seen = { method: req.method!, url: req.url!, headers: req.headers, body };
        this.seen.push(seen);
        const override = this.override.shift();
        if (override) return override(seen, res);
        this.answer(seen, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v3`;
  }

  private answer(req: Seen, res: ServerResponse) {
    if (req.method === 'POST') {
      const auth = JSON.parse(req.body).auth;
      if (auth.identity.password.user.password !== 'secret') return json(res, 401, {});
      const token = `svc-${++this.issued}`;
      this.serviceTokens.add(token);
      const expires = new Date(this.now() + this.serviceTokenLifetimeMs).toISOString();
      res.setHeader('x-subject-token', token);
      return json(res, 201, { token: { expires_at: expires, user: { id: 'svc' }, roles: [{ name: 'service' }] } });
    }
    if (!this.serviceTokens.has(String(req.headers['x-auth-token']))) return json(res, 401, {});
    const body = this.tokens.get(String(req.headers['x-subject-token']));
    return body ? json(res, 200, { token: body }) : json(res, 404, { error: { code: 404 } });
  }

  validations() {
    return this.seen.filter((s) => s.method === 'GET');
  }
  authentications() {
    return this.seen.filter((s) => s.method === 'POST');
  }
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function userToken(fields: Record<string, unknown> = {}, expiresAt = T0 + 60 * MINUTE) {
  return {
    expires_at: new Date(expiresAt).toISOString().replace('Z', '000Z'),
    user: { id: 'u1', name: 'alice' },
    project: { id: 'p1', name: 'project-one', domain: { id: 'default' } },
    roles: [{ name: 'member' }, { name: 'reader' }],
    ...fields,
  };
}

describe('keystone authenticator', () => {
  const keystone = new FakeKeystone();
  let t = T0;
  const now = () => t;
  let logLines: string[] = [];

  function authenticator(options: { ttlMs?: number; url?: string; password?: string; timeoutMs?: number } = {}) {
    const logger = pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) });
    return new KeystoneAuthenticator({
      client: new KeystoneClient(options.url ?? keystone.url, options.timeoutMs ?? 2000),
      credentials: {
        user: 'neutron',
        password: options.password ?? 'secret',
        userDomain: 'default',
        project: 'service',
        projectDomain: 'default',
      },
      tokenCacheTtlMs: options.ttlMs ?? 5 * MINUTE,
      wwwAuthenticateUri: 'http://keystone.example:5000',
      logger,
      now,
    });
  }

  async function rejection(promise: Promise<unknown>): Promise<AuthenticationFailure> {
    const error = await promise.then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof AuthenticationFailure, String(error));
    return error;
  }

  before(() => keystone.start());
  after(() => {
    keystone.server.closeAllConnections();
    return new Promise<void>((resolve) => keystone.server.close(() => resolve()));
  });
  beforeEach(() => {
    t = T0;
    keystone.now = now;
    keystone.seen = [];
    keystone.tokens.clear();
    keystone.serviceTokens.clear();
    keystone.override = [];
    logLines = [];
  });

  it('takes user, project and roles from the token, and ignores identity headers', async () => {
    keystone.tokens.set('user-tok', userToken());
    const ctx = await authenticator().authenticate(
      { 'x-auth-token': ' user-tok ', 'x-project-id': 'evil', 'x-roles': 'admin' },
      'req-1',
    );
    assert.equal(ctx.userId, 'u1');
    assert.equal(ctx.projectId, 'p1');
    assert.equal(ctx.projectName, 'project-one');
    assert.deepEqual(ctx.roles, ['member', 'reader']);
    assert.equal(ctx.isAdmin, false);
    const [validation] = keystone.validations();
    assert.equal(validation!.headers['x-subject-token'], 'user-tok', 'sent without the whitespace');
    assert.equal(validation!.headers['x-auth-token'], 'svc-1');
    assert.equal(validation!.headers['openstack-identity-access-rules'], '1.0');
    const [authentication] = keystone.authentications();
    assert.deepEqual(JSON.parse(authentication!.body).auth.scope, {
      project: { name: 'service', domain: { id: 'default' } },
    });
  });

  it('system- and domain-scoped tokens have no project; admin among the roles makes an admin', async () => {
    keystone.tokens.set('sys', userToken({ project: undefined, system: { all: true }, roles: [{ name: 'admin' }] }));
    keystone.tokens.set('dom', userToken({ project: undefined, domain: { id: 'd1', name: 'D' } }));
    const auth = authenticator();
    const sys = await auth.authenticate({ 'x-auth-token': 'sys' }, 'r');
    assert.equal(sys.projectId, null);
    assert.equal(sys.isAdmin, true);
    const dom = await auth.authenticate({ 'x-auth-token': 'dom' }, 'r');
    assert.equal(dom.projectId, null);
    assert.equal(dom.isAdmin, false);
  });

  it('answers 401 as keystonemiddleware does: no token, a malformed one, one Keystone does not know', async () => {
    const auth = authenticator();
    for (const headers of [
      {},
      { 'x-auth-token': '' },
      { 'x-auth-token': 'two words' },
      { 'x-auth-token': 'x'.repeat(9000) },
    ]) {
      const failure = await rejection(Promise.resolve().then(() => auth.authenticate(headers, 'r')));
      assert.equal(failure.status, 401);
    }
    assert.equal(keystone.seen.length, 0, 'nothing worth asking Keystone about');
    const failure = await rejection(auth.authenticate({ 'x-auth-token': 'unknown' }, 'r'));
    assert.equal(failure.status, 401);
    assert.deepEqual(failure.headers, { 'www-authenticate': 'Keystone uri="http://keystone.example:5000"' });
    assert.equal(
      failure.body,
      '{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}',
    );
  });

  it('caches a valid token for the cache time, then asks again (a revoked token is then refused)', async () => {
    keystone.tokens.set('tok', userToken());
    const auth = authenticator({ ttlMs: 5 * MINUTE });
    await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    t += 5 * MINUTE - 1;
    await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    assert.equal(keystone.validations().length, 1);
    keystone.tokens.delete('tok'); // revoked
    t += 1;
    assert.equal((await rejection(auth.authenticate({ 'x-auth-token': 'tok' }, 'r'))).status, 401);
    assert.equal(keystone.validations().length, 2);
  });

  it('with a cache time of 0, asks Keystone on every request', async () => {
    keystone.tokens.set('tok', userToken());
    const auth = authenticator({ ttlMs: 0 });
    for (let i = 0; i < 3; i++) await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    assert.equal(keystone.validations().length, 3);
    assert.equal(keystone.authentications().length, 1, 'one service token for all of them');
  });

  it('never accepts a token past its expiry, cached or not', async () => {
    keystone.tokens.set('short', userToken({}, T0 + MINUTE));
    const auth = authenticator({ ttlMs: 5 * MINUTE });
    await auth.authenticate({ 'x-auth-token': 'short' }, 'r');
    t += MINUTE;
    // Keystone (whose clock the fake does not move) would still vouch for it: our clock decides.
    assert.equal((await rejection(auth.authenticate({ 'x-auth-token': 'short' }, 'r'))).status, 401);
    assert.equal(keystone.validations().length, 2, 'the cached entry ended at the expiry');
    keystone.tokens.set('stale', userToken({}, T0 - 1));
    assert.equal((await rejection(auth.authenticate({ 'x-auth-token': 'stale' }, 'r'))).status, 401);
  });

  it('refuses application-credential tokens restricted by access rules', async () => {
    keystone.tokens.set('ac', userToken({ application_credential: { id: 'a', access_rules: [] } }));
    assert.equal((await rejection(authenticator().authenticate({ 'x-auth-token': 'ac' }, 'r'))).status, 401);
  });

  it('shares one validation among concurrent requests with the same token', async () => {
    keystone.tokens.set('tok', userToken());
    const auth = authenticator();
    const contexts = await Promise.all(
      Array.from({ length: 5 }, (_, i) => auth.authenticate({ 'x-auth-token': 'tok' }, `r${i}`)),
    );
    assert.deepEqual(new Set(contexts.map((c) => c.projectId)), new Set(['p1']));
    assert.deepEqual(
      contexts.map((c) => c.requestId),
      ['r0', 'r1', 'r2', 'r3', 'r4'],
    );
    assert.equal(keystone.validations().length, 1);
    assert.equal(keystone.authentications().length, 1);
  });

  it('renews the service token two minutes before it expires', async () => {
    keystone.tokens.set('tok', userToken({}, T0 + 600 * MINUTE));
    const auth = authenticator({ ttlMs: 0 });
    await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    const first = keystone.validations()[0]!.headers['x-auth-token'];
    t += 58 * MINUTE - 1;
    await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    assert.equal(keystone.authentications().length, 1);
    t += 1;
    await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    assert.equal(keystone.authentications().length, 2);
    assert.notEqual(keystone.validations().at(-1)!.headers['x-auth-token'], first);
  });

  it('renews the service token once when Keystone refuses it, then answers 503', async () => {
    keystone.tokens.set('tok', userToken());
    const auth = authenticator({ ttlMs: 0 });
    await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    keystone.serviceTokens.clear(); // revoked behind our back
    const ctx = await auth.authenticate({ 'x-auth-token': 'tok' }, 'r');
    assert.equal(ctx.projectId, 'p1');
    assert.equal(keystone.authentications().length, 2);
    // Keystone refuses even a fresh one: nothing the client can fix.
    keystone.override = [(_, res) => json(res, 401, {}), null, (_, res) => json(res, 401, {})];
    const failure = await rejection(auth.authenticate({ 'x-auth-token': 'tok' }, 'r'));
    assert.equal(failure.status, 503);
    assert.equal(keystone.authentications().length, 3, 'one renewal, not a loop');
  });

  it('answers 503 with webob body when Keystone is unreachable, slow, failing or refuses the service user', async () => {
    keystone.tokens.set('tok', userToken());
    const closed = new FakeKeystone();
    await closed.start();
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    const cases = [
      () => authenticator({ url: closed.url }),
      () => authenticator({ password: 'wrong' }),
      () => {
        keystone.override.push((_, res) => setTimeout(() => json(res, 500, {}), 500));
        return authenticator({ timeoutMs: 100 });
      },
      () => {
        // The validation's headers come at once, its body never finishes: unavailable, not "unknown token".
        keystone.override.push(null, (_, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"token": ');
          setTimeout(() => res.end('{}}'), 500);
        });
        return authenticator({ timeoutMs: 100 });
      },
    ];
    for (const makeAuthenticator of cases) {
      const failure = await rejection(makeAuthenticator().authenticate({ 'x-auth-token': 'tok' }, 'req-x'));
      assert.equal(failure.status, 503);
      assert.deepEqual(failure.headers, {});
      assert.deepEqual(JSON.parse(failure.body), {
        message:
          'The server is currently unavailable. Please try again at a later time.<br /><br />\nThe Keystone service is temporarily unavailable.\n\n',
        code: '503 Service Unavailable',
        title: 'Service Unavailable',
      });
    }
    const failing = authenticator();
    await failing.warmUp(); // the service token comes from Keystone, the validation then fails
    keystone.override.push((_, res) => json(res, 500, {}));
    assert.equal((await rejection(failing.authenticate({ 'x-auth-token': 'tok' }, 'r'))).status, 503);
    const log = logLines.join('');
    assert.match(log, /cannot validate a token/);
    assert.match(log, /Keystone refused the password of user neutron/);
    assert.ok(!log.includes('secret') && !log.includes('wrong'), 'no password in the log');
    assert.ok(!log.includes('"tok"') && !log.includes('svc-'), 'no token in the log');
  });
});
