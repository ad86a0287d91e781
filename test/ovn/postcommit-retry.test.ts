/**
 * The OVN driver's writes after commit when something fails between the commit and the NB write,
 * against a real OVN central: a postcommit whose database read failed is retried by resource key
 * (not left to the periodic full pass), at once when the database recovers; a full pass whose NB
 * session was replaced under it stops rather than write what it planned against the old replica;
 * a project's implicit default security group reaches the NB with the write that made it.
 *
 * The database failures are injected into the driver's reader (a fake failure of a real reader:
 * a PostgreSQL going away at exactly that moment cannot be arranged); OVN and the database are real.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OvnMechanismDriver } from '../../src/drivers/ovn/driver.js';
import type { ResourceReader } from '../../src/drivers/host.js';
import type { FullSyncReport } from '../../src/drivers/ovn/repair/full-sync.js';
import { newProjectId, useApi } from '../fixtures/api.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';

/** The driver's insides the tests reach into on purpose (its reader, its retries, its repair loop). */
interface DriverInsides {
  host: { reader: ResourceReader };
  retries: { pending: readonly string[] };
  repair: { fullSync(): Promise<FullSyncReport> };
}

describe('OVN: writes after commit that fail, and the default security group (sqlite)', () => {
  const ovn = useOvnCentral();
  const api = useApi('sqlite', { config: () => ({ ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } }) });
  const driver = () => api.server.drivers[0] as OvnMechanismDriver;
  const insides = () => driver() as unknown as DriverInsides;
  const switchOf = (id: string) => ovn.nbRows('Logical_Switch').find((r) => r.name === `neutron-${id}`);
  const lsp = (id: string) => ovn.nbRows('Logical_Switch_Port').find((r) => r.name === id);
  const fullPasses = async () =>
    [...(await api.admin.get('/metrics')).text.matchAll(/octonet_ovn_full_syncs_total\{trigger="([^"]+)"\} (\d+)/g)]
      .map((m) => `${m[1]}=${m[2]}`)
      .sort();

  /** Makes the reader's `method` fail (as a database gone away would) until the returned function is called. */
  function breakReader<K extends keyof ResourceReader>(method: K, times = Infinity): () => void {
    const reader = insides().host.reader;
    const original = reader[method];
    let left = times;
    reader[method] = ((...args: unknown[]) => {
      if (left-- > 0) return Promise.reject(new Error('database unavailable (injected)'));
      return (original as (...a: unknown[]) => unknown).apply(reader, args);
    }) as ResourceReader[K];
    return () => {
      reader[method] = original;
    };
  }

  it("a network whose postcommit read failed reaches the NB by the write's retry, not a full pass", async () => {
    const before = await fullPasses();
    const restore = breakReader('network', 1);
    try {
      const r = await api.admin.post('/v2.0/networks', { network: { name: 'retried' } });
      assert.equal(r.status, 201, 'the commit stands: the client gets its network');
      await eventually(() => assert.ok(switchOf(r.body.network.id), 'the switch came with the retry'));
    } finally {
      restore();
    }
    assert.deepEqual(await fullPasses(), before, 'no full pass ran meanwhile');
    assert.deepEqual(insides().retries.pending, []);
  });

  it('a port whose write kept failing is written at once when the database is back', async () => {
    const net = (await api.admin.post('/v2.0/networks', { network: { name: 'away' } })).body.network;
    await api.admin.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.81.0.0/24', ip_version: 4 } });
    const restore = breakReader('floatingIpsOfPort');
    let port;
    try {
      const r = await api.admin.post('/v2.0/ports', { port: { network_id: net.id, name: 'away' } });
      assert.equal(r.status, 201);
      port = r.body.port;
      assert.equal(lsp(port.id), undefined, 'its NB write failed');
      assert.ok(insides().retries.pending.includes(`port:${port.id}`), 'the port waits for a retry');
    } finally {
      restore();
    }
    // What the store's outage tracker calls when the database answers again (cli/serve.ts).
    api.server.services.deps.drivers.databaseRecovered();
    await eventually(() => assert.ok(lsp(port.id), 'written on recovery'));
    // The recovery's pass, too: planned beside the retry's write, it must not fail on that row.
    await eventually(async () => assert.ok((await fullPasses()).includes('database-recovered=1')));
    assert.ok(
      !api.logs().some((l) => l.msg === 'full OVN pass failed; it runs again on reconnect or at the next interval'),
    );
    assert.deepEqual(insides().retries.pending, []);
  });

  it('a full pass whose NB session was replaced under it writes nothing; the reconnect pass rebuilds', async () => {
    const net = (await api.admin.post('/v2.0/networks', { network: { name: 'replaced' } })).body.network;
    const reconnects = driver().nb.reconnects;
    const reader = insides().host.reader;
    const snapshot = reader.snapshot;
    let ours = true;
    let releaseOthers!: () => void;
    const othersMayRead = new Promise<void>((resolve) => (releaseOthers = resolve));
    // The pass reads the database; meanwhile the NB restarts empty and the client reconnects. The
    // reconnect's own pass waits at its read until this one is over: had it filled the new replica
    // first, this pass would find nothing to write, and so nothing to refuse.
    reader.snapshot = async () => {
      if (!ours) return othersMayRead.then(() => snapshot.call(reader));
      ours = false;
      ovn.restartNb({ empty: true });
      await eventually(() => assert.ok(driver().nb.reconnects > reconnects && driver().nb.connected));
      return snapshot.call(reader);
    };
    try {
      await assert.rejects(insides().repair.fullSync(), { name: 'NbReplicaReplaced' });
    } finally {
      reader.snapshot = snapshot;
      releaseOthers();
    }
    await eventually(() => assert.ok(switchOf(net.id), 'the pass after the reconnect wrote it'));
  });

  it("a project's default security group is in the NB as soon as its first network makes it", async () => {
    const project = newProjectId();
    const member = api.as({ project });
    const r = await member.post('/v2.0/networks', { network: { name: 'first' } });
    assert.equal(r.status, 201);
    const groups = ovn
      .nbRows('Port_Group')
      .filter((g) => g.external_ids['neutron:security_group_id'] !== undefined)
      .map((g) => g.external_ids['neutron:security_group_id'] as string);
    const listed = (await member.get('/v2.0/security-groups')).body.security_groups;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].name, 'default');
    assert.ok(groups.includes(listed[0].id), 'its Port_Group was written with the network, before any port');
    const group = ovn.nbRows('Port_Group').find((g) => g.external_ids['neutron:security_group_id'] === listed[0].id)!;
    assert.equal(group.acls.length, 4, 'with an ACL for each of its four rules');
  });

  it('one made by a list reaches the NB too', async () => {
    const member = api.as({ project: newProjectId() });
    const [group] = (await member.get('/v2.0/security-groups')).body.security_groups;
    assert.equal(group.name, 'default');
    assert.ok(
      ovn.nbRows('Port_Group').some((g) => g.external_ids['neutron:security_group_id'] === group.id),
      'written before the list answered',
    );
  });
});
