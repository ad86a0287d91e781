/**
 * Leader-only against a real 3-member RAFT NB cluster on unix sockets: the client settles on the
 * leader whatever the order of its remotes, follows leadership when it moves (the old leader stays
 * up) and when the leader dies, and transactions work again each time.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { OvsdbClient, type OvsdbClientOptions } from './client.js';
import type { NbTables } from './nb-types.js';
import { eq, operationsFor } from './operations.js';
import { NbCluster, waitFor, type OvsdbServerProcess } from '../../../../test/fixtures/ovsdb-servers.js';

type SwitchTables = Pick<NbTables, 'Logical_Switch'>;
const nb = operationsFor<SwitchTables>();

describe('OvsdbClient on a RAFT cluster', () => {
  let cluster: NbCluster;
  let clients: OvsdbClient<SwitchTables>[] = [];

  function client(remotes: string[], options: Partial<OvsdbClientOptions> = {}): OvsdbClient<SwitchTables> {
    const created = new OvsdbClient<SwitchTables>({
      remotes,
      database: 'OVN_Northbound',
      tables: { Logical_Switch: ['name', 'external_ids'] },
      backoff: { initialMs: 20, maxMs: 500 },
      ...options,
    });
    clients.push(created);
    return created;
  }

  /** Inserts a switch and checks that the replica holds it as soon as the transaction returns. */
  async function insertSwitch(target: OvsdbClient<SwitchTables>, name: string): Promise<void> {
    const [result] = await target.transact([nb.insert('Logical_Switch', { name })]);
    assert.equal(target.replica.get('Logical_Switch', result!.uuid!)?.name, name);
  }

  async function newLeaderOtherThan(old: OvsdbServerProcess): Promise<OvsdbServerProcess> {
    let leader: OvsdbServerProcess | undefined;
    await waitFor(async () => (leader = await cluster.leader()) !== old, 'a new leader');
    return leader!;
  }

  before(async () => {
    cluster = await NbCluster.start(3);
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
  });
  after(async () => {
    await cluster?.destroy();
  });

  it('settles on the leader whatever order the remotes are given in', async () => {
    const leader = await cluster.leader();
    const remotes = cluster.members.map((member) => member.unixRemote);
    const orders = [
      remotes,
      [...remotes].reverse(),
      [remotes[1]!, remotes[2]!, remotes[0]!],
      [remotes[2]!, remotes[0]!, remotes[1]!],
    ];
    for (const order of orders) {
      const c = client(order);
      await c.start();
      assert.equal(c.currentRemote, leader.unixRemote, `remotes ${order.join(' ')}`);
      await c.close();
    }
  });

  it('uses a follower when leaderOnly is off', async () => {
    const leader = await cluster.leader();
    const follower = cluster.members.find((member) => member !== leader)!;
    const c = client([follower.unixRemote, leader.unixRemote], { leaderOnly: false });
    await c.start();
    assert.equal(c.currentRemote, follower.unixRemote);
    await c.transact([nb.insert('Logical_Switch', { name: 'via-follower' })]);
    await waitFor(() => c.replica.findOne('Logical_Switch', 'name', 'via-follower'), 'the switch in the replica');
  });

  it('moves to the new leader when leadership moves and when the leader dies', async () => {
    const c = client(cluster.members.map((member) => member.unixRemote));
    let disconnects = 0;
    c.on('disconnected', () => disconnects++);
    await c.start();
    const first = await cluster.leader();
    assert.equal(c.currentRemote, first.unixRemote);
    await insertSwitch(c, 'sw-1');

    // Leadership moves while the old leader stays up: only its _Server row tells the client.
    await first.appctl('cluster/failure-test', 'transfer-leadership');
    const second = await newLeaderOtherThan(first);
    await waitFor(() => c.currentRemote === second.unixRemote, 'the client on the new leader');
    assert.ok(first.running);
    await insertSwitch(c, 'sw-2');

    // The leader dies.
    await second.stop('SIGKILL');
    const third = await newLeaderOtherThan(second);
    await waitFor(() => c.currentRemote === third.unixRemote, 'the client on the leader after the crash');
    await insertSwitch(c, 'sw-3');

    assert.deepEqual(
      [...c.replica.table('Logical_Switch').values()]
        .map((row) => row.name)
        .filter((name) => name.startsWith('sw-'))
        .sort(),
      ['sw-1', 'sw-2', 'sw-3'],
    );
    assert.ok(disconnects >= 2);
    assert.ok(c.reconnects >= 2);
    await c.transact([nb.delete('Logical_Switch', [eq('name', 'sw-1')])]);
    assert.equal(c.replica.findOne('Logical_Switch', 'name', 'sw-1'), undefined);
  });
});
