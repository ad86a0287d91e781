/**
 * The topology page with `auth: keystone` against a real Keystone (test/fixtures/keystone.ts), in
 * Debian's Chromium: the page asks for credentials, octonet gets the token from Keystone and keeps
 * it server-side behind an HttpOnly, SameSite=Strict cookie; a member of project B sees B's
 * resources and the shared external network but nothing of project A in the DOM; an admin sees
 * both; signing out ends the session and revokes the token at Keystone; no request leaves for
 * another origin.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { Page } from 'playwright-core';
import { createAuthenticator } from '../../src/auth/authenticator.js';
import { KeystoneClient, type PasswordAuth, type PasswordToken } from '../../src/auth/keystone-client.js';
import { KeystoneSessions } from '../../src/web/sessions.js';
import { useApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { useKeystone, withToken, type KeystoneUser } from '../fixtures/keystone.js';
import { foreignRequests, openPage, useBrowser } from './browser.js';

const WAIT = { timeout: 10_000 };

/** The real Keystone client, remembering the tokens it was issued (to check their revocation). */
class RecordingKeystoneClient extends KeystoneClient {
  readonly issued: string[] = [];
  override async issuePasswordToken(auth: PasswordAuth): Promise<PasswordToken> {
    const token = await super.issuePasswordToken(auth);
    this.issued.push(token.token);
    return token;
  }
}

async function signIn(page: Page, user: KeystoneUser, password = user.password): Promise<void> {
  await page.waitForSelector('#sign-in:not([hidden])', WAIT);
  await page.fill('#sign-in [name=username]', user.name);
  await page.fill('#sign-in [name=password]', password);
  await page.fill('#sign-in [name=project]', user.project.name);
  await page.click('#sign-in [type=submit]');
}

describe('topology page (keystone)', () => {
  const keystone = useKeystone();
  const api = useApi('sqlite', { config: () => keystone.octonetConfig({ token_cache_time: 0 }) });
  const browser = useBrowser();
  const seenOnlyByA: string[] = [];
  let netB: Json;
  let external: Json;

  before(async () => {
    const as = async (user: KeystoneUser) => withToken(api.admin, await keystone.issueToken(user));
    const [memberA, memberB, cloudAdmin] = await Promise.all([
      as(keystone.users.memberA),
      as(keystone.users.memberB),
      as(keystone.users.cloudAdmin),
    ]);
    const post = async (client: typeof memberA, path: string, body: unknown) => {
      const r = await client.post(path, body);
      assert.equal(r.status, 201, `${path}: ${r.text}`);
      return Object.values(r.body as Record<string, Json>)[0]!;
    };
    external = await post(cloudAdmin, '/v2.0/networks', { network: { name: 'public', 'router:external': true } });
    const netA = await post(memberA, '/v2.0/networks', { network: { name: 'secret-a-net' } });
    await post(memberA, '/v2.0/subnets', { subnet: { network_id: netA.id, cidr: '10.66.0.0/24', ip_version: 4 } });
    const portA = await post(memberA, '/v2.0/ports', { port: { network_id: netA.id, name: 'secret-a-vm' } });
    const routerA = await post(memberA, '/v2.0/routers', { router: { name: 'secret-a-router' } });
    seenOnlyByA.push(netA.id, 'secret-a-net', portA.id, 'secret-a-vm', routerA.id, 'secret-a-router', '10.66.0.');
    netB = await post(memberB, '/v2.0/networks', { network: { name: 'b-net' } });
    await post(memberB, '/v2.0/ports', { port: { network_id: netB.id, name: 'b-vm' } });
  });

  it("signs a member of B in: B's resources and the external network, nothing of A's", async () => {
    const open = await openPage(browser(), `${api.url}/ui/`);
    const { page, context } = open;
    assert.equal(await page.isVisible('#topology'), false);

    await signIn(page, keystone.users.memberB, 'wrong password');
    await page.waitForSelector('#sign-in-error:has-text("refused")', WAIT);
    assert.deepEqual(await context.cookies(), []);

    await signIn(page, keystone.users.memberB);
    await page.waitForSelector(`[data-kind="network"][data-id="${netB.id}"]`, WAIT);
    await page.waitForSelector('[data-kind="port"] .label:text-is("b-vm")', WAIT);
    assert.equal(await page.locator(`[data-kind="network"][data-id="${external.id}"]`).count(), 1);
    assert.match((await page.textContent('#who')) ?? '', new RegExp(keystone.users.memberB.name));
    const html = await page.content();
    for (const secret of seenOnlyByA) assert.equal(html.includes(secret), false, `B's page shows ${secret}`);
    assert.equal(await page.locator('[data-kind="node"]').count(), 0);

    const [cookie] = await context.cookies();
    assert.equal(cookie?.name, 'octonet_session');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '');

    await page.click('#sign-out');
    await page.waitForSelector('#sign-in:not([hidden])', WAIT);
    assert.equal(await page.locator('[data-kind="network"]').count(), 0);
    // The old cookie opens nothing any more.
    const stale = await fetch(`${api.url}/ui/topology`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } });
    assert.equal(stale.status, 401);

    assert.deepEqual(foreignRequests(open.requests, api.url), []);
    assert.deepEqual(
      open.errors.filter((e) => !/401|Unauthorized/.test(e)),
      [],
    );
    await context.close();
  });

  it("shows an admin both projects' resources", async () => {
    const open = await openPage(browser(), `${api.url}/`);
    await signIn(open.page, keystone.users.adminA);
    await open.page.waitForSelector(`[data-kind="network"][data-id="${netB.id}"]`, WAIT);
    await open.page.waitForSelector('[data-kind="network"] .label:text-is("secret-a-net")', WAIT);
    assert.deepEqual(foreignRequests(open.requests, api.url), []);
    await open.context.close();
  });

  it('signing out revokes the token at Keystone', async () => {
    const client = new RecordingKeystoneClient(keystone.url, 10_000);
    const authenticator = createAuthenticator(api.config, pino({ level: 'silent' }));
    const sessions = new KeystoneSessions(client, authenticator);
    const user = keystone.users.memberA;
    const { id } = await sessions.signIn({
      username: user.name,
      password: user.password,
      project: user.project.name,
      domain: 'Default',
    });
    assert.equal((await sessions.context(id, 'req-test'))?.projectId, user.project.id);
    assert.equal(await sessions.signOut(id), true);
    const admin = await keystone.issueToken(keystone.users.cloudAdmin);
    assert.equal(await client.validateToken(admin, client.issued[0]!), null);
    assert.equal(await sessions.context(id, 'req-test'), undefined);
  });
});
