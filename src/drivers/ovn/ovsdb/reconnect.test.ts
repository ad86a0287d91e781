/**
 * Reconnecting after the server went away and its database changed meanwhile: the client comes
 * back by itself, its replica equals the server's content again, and listeners get exactly the
 * rows deleted, inserted and changed while it was away, followed by `synced`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OvsdbClient } from './client.js';
import { OvsdbNotConnected } from './errors.js';
import type { NbTables } from './nb-types.js';
import { byUuid, eq, operationsFor } from './operations.js';
import { canonicalTable, StandaloneNb, waitFor } from '../../../../test/fixtures/ovsdb-servers.js';
import { namedUuid, type GenericRow } from './wire.js';

type SwitchTables = Pick<NbTables, 'Logical_Switch' | 'Logical_Switch_Port'>;
const nb = operationsFor<SwitchTables>();
const TABLES = { Logical_Switch: 'all', Logical_Switch_Port: 'all' } as const;

describe('OvsdbClient across a server restart', () => {
  let server: StandaloneNb;
  let client: OvsdbClient<SwitchTables>;

  before(async () => {
    server = await StandaloneNb.start();
    client = new OvsdbClient<SwitchTables>({
      remotes: [server.unixRemote],
      database: 'OVN_Northbound',
      tables: TABLES,
      backoff: { initialMs: 20, maxMs: 200 },
    });
  });
  after(async () => {
    await client?.close();
    await server?.destroy();
  });

  it('reports what changed while it was away, then syncs', async () => {
    await client.start();
    await client.transact([
      nb.insert('Logical_Switch', { name: 'sw-keep', ports: [namedUuid('kept'), namedUuid('gone')] }),
      nb.insert('Logical_Switch_Port', { name: 'p-kept' }, { uuidName: 'kept' }),
      nb.insert('Logical_Switch_Port', { name: 'p-gone' }, { uuidName: 'gone' }),
      nb.insert('Logical_Switch', { name: 'sw-gone' }),
      nb.insert('Logical_Switch', { name: 'sw-change', external_ids: { rev: '1' } }),
      nb.insert('Logical_Switch', { name: 'sw-same', other_config: { a: 'b' } }),
    ]);
    const before = new Map([...client.replica.table('Logical_Switch').values()].map((row) => [row.name, row]));
    const pGone = client.replica.findOne('Logical_Switch_Port', 'name', 'p-gone')!;
    const pKept = client.replica.findOne('Logical_Switch_Port', 'name', 'p-kept')!;

    const events: string[] = [];
    const changes: { table: string; kind: string; uuid: string; name: unknown }[] = [];
    client.on('disconnected', () => events.push('disconnected'));
    client.on('connected', () => events.push('connected'));
    client.on('synced', () => events.push('synced'));
    client.onChange((batch) => {
      events.push('changes');
      for (const change of batch) {
        changes.push({ ...change, name: (change.row ?? change.old)!.name });
      }
    });

    await server.stop('SIGKILL');
    await waitFor(() => !client.connected, 'the client to notice');
    await assert.rejects(client.transact([nb.comment('while down')]), OvsdbNotConnected);
    const [, inserted] = (await server.transactOffline([
      { op: 'delete', table: 'Logical_Switch', where: [['name', '==', 'sw-gone']] },
      { op: 'insert', table: 'Logical_Switch', row: { name: 'sw-new' } },
      {
        op: 'update',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw-change']],
        row: { external_ids: ['map', [['rev', '2']]] },
      },
      // Taking p-gone out of its switch deletes it (ports are not root rows).
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw-keep']],
        mutations: [['ports', 'delete', ['uuid', pGone._uuid]]],
      },
    ])) as [unknown, { uuid: [string, string] }];
    const swNew = inserted.uuid[1];
    await server.start();

    await waitFor(() => events.includes('synced'), 'the client to resync by itself');
    assert.deepEqual(events, ['disconnected', 'connected', 'changes', 'synced']);
    assert.equal(client.reconnects, 1);
    assert.deepEqual(
      changes.map(({ table, kind, uuid, name }) => [table, kind, name, uuid]).sort(),
      [
        ['Logical_Switch', 'delete', 'sw-gone', before.get('sw-gone')!._uuid],
        ['Logical_Switch', 'insert', 'sw-new', swNew],
        ['Logical_Switch', 'modify', 'sw-change', before.get('sw-change')!._uuid],
        ['Logical_Switch', 'modify', 'sw-keep', before.get('sw-keep')!._uuid],
        ['Logical_Switch_Port', 'delete', 'p-gone', pGone._uuid],
      ].sort(),
    );
    assert.equal(client.replica.get('Logical_Switch', before.get('sw-same')!._uuid), before.get('sw-same'));
    assert.equal(client.replica.findOne('Logical_Switch_Port', 'name', 'p-kept'), pKept);
    assert.equal(client.replica.findOne('Logical_Switch_Port', 'name', 'p-gone'), undefined);
    assert.deepEqual(client.replica.findOne('Logical_Switch', 'name', 'sw-change')?.external_ids, { rev: '2' });

    for (const table of Object.keys(TABLES)) {
      const columns = [...client.schema!.tables.get(table)!.columns.keys()].filter((c) => !c.startsWith('_'));
      assert.deepEqual(
        canonicalTable(client.replica.table<GenericRow>(table)),
        canonicalTable(await server.list(client.schema!, table, columns)),
        `${table} equals the server's`,
      );
    }

    // And the session works as before.
    await client.transact([nb.update('Logical_Switch', [eq('name', 'sw-new')], { other_config: { x: 'y' } })]);
    assert.deepEqual(client.replica.get('Logical_Switch', swNew)?.other_config, { x: 'y' });
    await client.transact([nb.delete('Logical_Switch', [byUuid(swNew)])]);
  });
});
