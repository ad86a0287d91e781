/**
 * One owner per NB, against a real OVN central: the first octonet marks the NB with its database's
 * identity; a second one with another database on the same NB refuses to write to it (its API
 * still serves its own database), says why once in the log and in `/readyz`, and leaves the NB as
 * it found it, also across a reconnect and when asked for a full pass. `ovn.nb_takeover` takes
 * the NB over deliberately, and the previous owner then stops writing instead of fighting.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import { NB_OWNER_KEY } from '../../src/drivers/ovn/nb-owner.js';
import { deploymentIdentity } from '../../src/store/identity.js';
import { BACKENDS, startApi, type TestApi } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

type Api = TestApi & { close(): Promise<void> };

interface Readiness {
  ready: boolean;
  checks: Record<string, { ready: boolean; detail: string }>;
}

const REFUSAL = /belongs to another octonet deployment/;

describe('one owner per OVN NB', () => {
  const ovn = useOvnCentral();
  const started: Api[] = [];
  after(async () => {
    for (const api of started.reverse()) await api.close();
  });
  const start = async (backend: 'sqlite' | 'postgres', extra: Record<string, unknown> = {}) => {
    const api = await startApi(backend, {
      config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb, ...extra } }),
    });
    started.push(api);
    return api;
  };
  const driver = (api: Api) => api.server.drivers[0] as OvnMechanismDriver;
  /** The driver's full pass, requested now (its repair loop is private: the test reaches in on purpose). */
  const requestFullPass = async (api: Api) => {
    (driver(api) as unknown as { repair: { requestFullSync(trigger: string): void } }).repair.requestFullSync('test');
    await driver(api).settled();
  };
  const mark = () => (ovn.nbRows('NB_Global')[0]!.external_ids as Record<string, string>)[NB_OWNER_KEY];
  const switches = () =>
    ovn
      .nbRows('Logical_Switch')
      .map((r) => r.name as string)
      .sort();
  /** What a second deployment might touch: every switch and port, and the owner mark. */
  const nbSnapshot = () => ({
    mark: mark(),
    switches: ovn.nbRows('Logical_Switch').map((r: Json) => [r.name, r.external_ids]),
    ports: ovn.nbRows('Logical_Switch_Port').map((r: Json) => [r.name, r.external_ids]),
  });
  const readiness = async (api: Api) => {
    const response = await fetch(`${api.url}/readyz`);
    return { status: response.status, body: (await response.json()) as Readiness };
  };
  const refusals = (api: Api) => api.logs().filter((l) => l.level === 50 && REFUSAL.test(String(l.msg)));

  let first: Api;
  let second: Api;
  let firstNetwork: Json;

  it('the first deployment marks the NB with its identity and writes it', async () => {
    first = await start('sqlite');
    const identity = await deploymentIdentity(first.server.store);
    assert.equal(mark(), identity);
    const { status, body } = await readiness(first);
    assert.equal(status, 200);
    assert.equal(body.checks.ovn_nb_owner!.ready, true);
    const r = await first.admin.post('/v2.0/networks', { network: { name: 'first' } });
    assert.equal(r.status, 201);
    firstNetwork = r.body.network;
    assert.ok(switches().includes(`neutron-${firstNetwork.id}`));
  });

  it('a second deployment (another database) refuses the NB: not ready, said once, the NB untouched', async () => {
    const before = nbSnapshot();
    second = await start(BACKENDS.includes('postgres') ? 'postgres' : 'sqlite');
    const firstIdentity = await deploymentIdentity(first.server.store);
    const secondIdentity = await deploymentIdentity(second.server.store);
    assert.notEqual(secondIdentity, firstIdentity);

    const { status, body } = await readiness(second);
    assert.equal(status, 503);
    assert.equal(body.checks.ovn_nb!.ready, true, 'connected: the NB is reachable, just not ours');
    assert.equal(body.checks.ovn_nb_owner!.ready, false);
    assert.match(body.checks.ovn_nb_owner!.detail, REFUSAL);
    assert.ok(body.checks.ovn_nb_owner!.detail.includes(firstIdentity));
    assert.ok(body.checks.ovn_nb_owner!.detail.includes('nb_takeover'));

    // Its API serves its own database; nothing of it reaches the NB, nothing of the first goes.
    const r = await second.admin.post('/v2.0/networks', { network: { name: 'second' } });
    assert.equal(r.status, 201);
    const subnet = await second.admin.post('/v2.0/subnets', {
      subnet: { network_id: r.body.network.id, cidr: '10.77.0.0/24', ip_version: 4 },
    });
    assert.equal(subnet.status, 201);
    await requestFullPass(second);
    assert.deepEqual(nbSnapshot(), before);
    assert.equal(refusals(second).length, 1, 'the refusal is logged once');
    assert.equal(refusals(first).length, 0);
  });

  it('after an NB reconnect it still refuses, without saying so again', async () => {
    const before = nbSnapshot();
    ovn.restartNb();
    await eventually(async () => {
      const { body } = await readiness(second);
      assert.equal(body.checks.ovn_nb!.ready, true);
      assert.match(body.checks.ovn_nb_owner!.detail, REFUSAL);
    });
    await eventually(async () => assert.equal((await readiness(first)).status, 200));
    await driver(first).settled();
    await driver(second).settled();
    assert.deepEqual(nbSnapshot(), before);
    assert.equal(refusals(second).length, 1);
  });

  it('ovn.nb_takeover takes the NB over; the previous owner stops writing instead of fighting', async () => {
    const third = await start('sqlite', { nb_takeover: true });
    const thirdIdentity = await deploymentIdentity(third.server.store);
    assert.equal(mark(), thirdIdentity);
    assert.equal((await readiness(third)).status, 200);
    assert.ok(third.logs().some((l) => l.level === 40 && /taken over/.test(String(l.msg))));
    // Its database has no networks: its full pass made the NB match it.
    assert.ok(!switches().includes(`neutron-${firstNetwork.id}`));

    // The first deployment notices the new mark and stands down.
    const down = await eventually(async () => {
      const r = await readiness(first);
      assert.equal(r.status, 503);
      return r.body;
    });
    assert.ok(down.checks.ovn_nb_owner!.detail.includes(thirdIdentity));
    const r = await first.admin.post('/v2.0/networks', { network: { name: 'late' } });
    assert.equal(r.status, 201);
    await requestFullPass(first);
    const names = switches();
    assert.ok(!names.includes(`neutron-${firstNetwork.id}`), 'the first does not put its switches back');
    assert.ok(!names.includes(`neutron-${r.body.network.id}`));
    assert.equal(mark(), thirdIdentity);
    assert.equal(refusals(first).length, 1);
  });
});
