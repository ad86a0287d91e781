/**
 * The notifier with a REAL Keystone (Debian's, test/fixtures/keystone.ts): octonet authenticates
 * as the `nova:` user with its password file, finds Nova in the catalog as service type `compute`
 * (public interface, RegionOne), and sends the events to it with a token Keystone validates as
 * that user's. Nova is the STAND-IN of stand-in-nova.ts (it records what arrives).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MechanismDriver } from '../../src/drivers/contract.js';
import { startApi, type TestApi } from '../fixtures/api.js';
import { REGION, useKeystone } from '../fixtures/keystone.js';
import { StandInNova } from './stand-in-nova.js';

const binder: MechanismDriver = { name: 'test-binder', bindPort: () => ({ vifType: 'ovs', vifDetails: {} }) };

describe('Nova notifier with a real Keystone', () => {
  const keystone = useKeystone();
  const nova = new StandInNova();
  let api: TestApi & { close(): Promise<void> };

  before(async () => {
    await nova.start();
    await keystone.setEndpoint('compute', `${nova.url}/v2.1`);
    const user = keystone.users.adminA;
    const dir = mkdtempSync(join(tmpdir(), 'octonet-nova-ks-'));
    writeFileSync(join(dir, 'password'), `${user.password}\n`);
    api = await startApi('sqlite', {
      config: {
        nova: {
          auth_url: keystone.url,
          username: user.name,
          password_file: join(dir, 'password'),
          project_name: user.project.name,
          region_name: REGION,
          endpoint_type: 'internal',
        },
      },
      drivers: [binder],
    });
  });
  after(async () => {
    await api.close();
    await nova.stop();
  });

  it("sends the event to the catalog's compute endpoint with the user's token", async () => {
    const net = (await api.admin.post('/v2.0/networks', { network: { name: 'k' } })).body.network;
    const server = randomUUID();
    const port = (
      await api.admin.post('/v2.0/ports', {
        port: { network_id: net.id, device_id: server, device_owner: 'compute:nova', 'binding:host_id': 'node1' },
      })
    ).body.port;
    await api.server.services.ports.reportUp(port.id, true);
    await nova.until(() => nova.events.some((e) => e.tag === port.id));
    const post = nova.posts.find((p) => p.events.some((e) => e.tag === port.id))!;
    assert.deepEqual(post.events, [
      { name: 'network-vif-plugged', server_uuid: server, tag: port.id, status: 'completed' },
    ]);
    // Keystone itself says whose token it is.
    const admin = await keystone.issueToken(keystone.users.cloudAdmin);
    const check = await fetch(`${keystone.url}/auth/tokens?nocatalog`, {
      headers: { 'x-auth-token': admin, 'x-subject-token': String(post.headers['x-auth-token']) },
    });
    assert.equal(check.status, 200);
    const token = ((await check.json()) as { token: { user: { name: string }; project: { name: string } } }).token;
    assert.equal(token.user.name, keystone.users.adminA.name);
    assert.equal(token.project.name, keystone.users.adminA.project.name);
  });
});
