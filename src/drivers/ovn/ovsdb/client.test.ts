/**
 * OvsdbClient against a real standalone ovsdb-server with the OVN NB schema: transactions over
 * unix and TCP with their effect in the replica and as change events, failed waits and bad
 * operations, changes made from outside with ovn-nbctl (update2 set and map diffs), echo
 * keep-alives in both directions, a frozen server, and a clean close.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { OvsdbClient, type OvsdbClientOptions } from './client.js';
import { OvsdbEncodeError, OvsdbNotConnected, OvsdbTransactionError } from './errors.js';
import { NB_TABLES, type NbTables } from './nb-types.js';
import { byUuid, eq, op, operationsFor } from './operations.js';
import type { RowChange } from './replica.js';
import {
  canConnect,
  canonicalTable,
  freePort,
  StandaloneNb,
  waitFor,
} from '../../../../test/fixtures/ovsdb-servers.js';
import { namedUuid, type GenericRow } from './wire.js';

const nb = operationsFor<NbTables>();

describe('OvsdbClient on a standalone NB database', () => {
  let server: StandaloneNb;
  let clients: { close(): Promise<void> }[] = [];

  function client(remote: string, options: Partial<OvsdbClientOptions> = {}): OvsdbClient<NbTables> {
    const created = new OvsdbClient<NbTables>({
      remotes: [remote],
      database: 'OVN_Northbound',
      tables: NB_TABLES,
      backoff: { initialMs: 20, maxMs: 200 },
      logger: {
        info: (o, m) => console.error(m, o),
        warn: (o, m) => console.error(m, o),
        debug: (o, m) => console.error(m, o),
      },
      ...options,
    });
    clients.push(created);
    return created;
  }

  /** Every change the client reports, flattened, from now on. */
  function recordChanges(target: OvsdbClient<NbTables>): RowChange<NbTables>[] {
    const seen: RowChange<NbTables>[] = [];
    target.onChange((changes) => seen.push(...changes));
    return seen;
  }

  async function replicaMatchesServer(target: OvsdbClient<NbTables>, table: keyof NbTables): Promise<boolean> {
    const columns = [...target.schema!.tables.get(table)!.columns.keys()].filter((c) => !c.startsWith('_'));
    const onServer = await server.list(target.schema!, table, columns);
    const inReplica = target.replica.table<GenericRow>(table);
    try {
      assert.deepEqual(canonicalTable(inReplica), canonicalTable(onServer));
      return true;
    } catch {
      return false;
    }
  }

  before(async () => {
    server = await StandaloneNb.start();
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
  });
  after(async () => {
    await server?.destroy();
  });

  for (const transport of ['unix', 'tcp'] as const) {
    it(`inserts, updates, mutates and deletes over ${transport}; replica and change events follow`, async () => {
      const c = client(transport === 'unix' ? server.unixRemote : server.tcpRemote);
      await c.start();
      assert.equal(c.connected, true);
      const changes = recordChanges(c);
      const sw = `sw-${transport}`;

      const [switchResult, portResult] = await c.transact([
        nb.insert('Logical_Switch', {
          name: sw,
          ports: [namedUuid('port')],
          external_ids: { 'neutron:revision': '1' },
        }),
        nb.insert(
          'Logical_Switch_Port',
          { name: `${sw}-p1`, addresses: ['fa:16:3e:00:00:01 10.0.0.5'] },
          { uuidName: 'port' },
        ),
      ]);
      const switchUuid = switchResult!.uuid!;
      const portUuid = portResult!.uuid!;
      // The update precedes the reply on the wire: the replica has the rows when transact resolves.
      const port = c.replica.get('Logical_Switch_Port', portUuid);
      assert.equal(port?.name, `${sw}-p1`);
      assert.deepEqual(c.replica.get('Logical_Switch', switchUuid)?.ports, [portUuid]);
      assert.equal(c.replica.findOne('Logical_Switch_Port', 'name', `${sw}-p1`)?._uuid, portUuid);
      assert.deepEqual(
        changes.map(({ table, kind, uuid }) => [table, kind, uuid]),
        [
          ['Logical_Switch', 'insert', switchUuid],
          ['Logical_Switch_Port', 'insert', portUuid],
        ],
      );

      changes.length = 0;
      const [updated] = await c.transact([
        nb.update('Logical_Switch_Port', [byUuid(portUuid)], { tag_request: 7, enabled: false, type: 'localnet' }),
      ]);
      assert.equal(updated!.count, 1);
      const afterUpdate = c.replica.get('Logical_Switch_Port', portUuid)!;
      assert.equal(afterUpdate.tag_request, 7);
      assert.equal(afterUpdate.enabled, false);
      assert.equal(afterUpdate.type, 'localnet');
      assert.deepEqual(changes, [
        { table: 'Logical_Switch_Port', uuid: portUuid, kind: 'modify', row: afterUpdate, old: port },
      ]);

      await c.transact([
        nb.mutate(
          'Logical_Switch_Port',
          [eq('name', `${sw}-p1`)],
          [
            ['external_ids', 'insert', { 'neutron:device_owner': 'compute:nova', 'neutron:host': 'h1' }],
            ['addresses', 'insert', ['router']],
            ['addresses', 'delete', ['fa:16:3e:00:00:01 10.0.0.5']],
            ['tag_request', '+=', 2],
          ],
        ),
        nb.insert('Logical_Switch_Port', { name: `${sw}-p2` }, { uuidName: 'p2' }),
        nb.mutate('Logical_Switch', [byUuid(switchUuid)], [['ports', 'insert', [namedUuid('p2')]]]),
      ]);
      const mutated = c.replica.get('Logical_Switch_Port', portUuid)!;
      assert.deepEqual(mutated.external_ids, { 'neutron:device_owner': 'compute:nova', 'neutron:host': 'h1' });
      assert.deepEqual(mutated.addresses, ['router']);
      assert.equal(mutated.tag_request, 9);
      assert.equal(c.replica.get('Logical_Switch', switchUuid)?.ports.length, 2);

      const [selected] = await c.transact([
        nb.select('Logical_Switch_Port', [eq('name', `${sw}-p1`)], ['name', 'tag_request']),
      ]);
      assert.deepEqual(selected!.rows, [{ name: `${sw}-p1`, tag_request: 9 }]);

      changes.length = 0;
      // A port is not a root row: taking it out of the switch deletes it.
      const p2Uuid = c.replica.findOne('Logical_Switch_Port', 'name', `${sw}-p2`)!._uuid;
      await c.transact([nb.mutate('Logical_Switch', [byUuid(switchUuid)], [['ports', 'delete', [p2Uuid]]])]);
      const [deleted] = await c.transact([nb.delete('Logical_Switch', [eq('name', sw)])]);
      assert.equal(deleted!.count, 1);
      assert.equal(c.replica.get('Logical_Switch', switchUuid), undefined);
      assert.equal(c.replica.findOne('Logical_Switch_Port', 'name', `${sw}-p1`), undefined);
      assert.deepEqual(
        changes.map(({ table, kind, uuid }) => [table, kind, uuid]).sort(),
        [
          ['Logical_Switch', 'delete', switchUuid],
          ['Logical_Switch', 'modify', switchUuid],
          ['Logical_Switch_Port', 'delete', p2Uuid],
          ['Logical_Switch_Port', 'delete', portUuid],
        ].sort(),
      );
      assert.equal(c.transactionsFailed, 0);
      assert.equal(c.transactionsSent, 6);
    });
  }

  it('rejects a wait that no longer holds with OvsdbTransactionError naming the operation', async () => {
    const c = client(server.unixRemote);
    await c.start();
    await server.nbctl('ls-add', 'sw-wait', '--', 'lsp-add', 'sw-wait', 'p-wait');
    const port = await waitFor(
      () => c.replica.findOne('Logical_Switch_Port', 'name', 'p-wait'),
      'the port in the replica',
    );
    // While the row is unchanged, the guarded update goes through.
    await c.transact([
      nb.waitUnchanged('Logical_Switch_Port', port, ['addresses', 'options']),
      nb.update('Logical_Switch_Port', [byUuid(port._uuid)], { external_ids: { stamp: '1' } }),
    ]);
    await server.nbctl('lsp-set-addresses', 'p-wait', 'router');
    await waitFor(() => c.replica.findOne('Logical_Switch_Port', 'name', 'p-wait')?.addresses.length, 'the change');
    const failedBefore = c.transactionsFailed;
    const error = await c
      .transact([
        nb.comment('guarded update'),
        nb.waitUnchanged('Logical_Switch_Port', port, ['addresses', 'options']),
        nb.update('Logical_Switch_Port', [byUuid(port._uuid)], { external_ids: { stamp: '2' } }),
      ])
      .catch((e: unknown) => e);
    assert.ok(error instanceof OvsdbTransactionError, String(error));
    assert.equal(error.index, 1);
    assert.equal(error.operation, 'wait Logical_Switch_Port');
    assert.equal(error.error, 'timed out');
    assert.equal(c.transactionsFailed, failedBefore + 1);
    assert.deepEqual(c.replica.findOne('Logical_Switch_Port', 'name', 'p-wait')?.external_ids, { stamp: '1' });
  });

  it('reports bad operations clearly: refused before sending, or by the server with the failing index', async () => {
    const c = client(server.unixRemote);
    await c.start();
    const sent = c.transactionsSent;
    await assert.rejects(
      c.transact([op.insert('Logical_Switch', { name: 'x' }), op.insert('Logical_Switch', { nmae: 'typo' })]),
      (error: unknown) =>
        error instanceof OvsdbEncodeError && /operation 1: Logical_Switch has no column nmae/.test(error.message),
    );
    await assert.rejects(
      c.transact([op.insert('Logical_Swich', {})]),
      /operation 0: OVN_Northbound has no table Logical_Swich/,
    );
    assert.equal(c.transactionsSent, sent, 'nothing was sent');

    // The server refuses an enum value it does not know, at that operation.
    const enumError = await c
      .transact([
        nb.insert('Logical_Switch', { name: 'sw-acl', acls: [namedUuid('acl')] }),
        nb.insert(
          'ACL',
          { action: 'permit' as 'allow', direction: 'to-lport', match: '1', priority: 1 },
          { uuidName: 'acl' },
        ),
      ])
      .catch((e: unknown) => e);
    assert.ok(enumError instanceof OvsdbTransactionError, String(enumError));
    assert.equal(enumError.index, 1);
    assert.equal(enumError.error, 'constraint violation');
    assert.match(enumError.details ?? '', /permit/);

    // A duplicate in a unique index is found at commit: the extra result after the last operation.
    await c.transact([nb.insert('Port_Group', { name: 'pg_dup' })]);
    const commitError = await c.transact([nb.insert('Port_Group', { name: 'pg_dup' })]).catch((e: unknown) => e);
    assert.ok(commitError instanceof OvsdbTransactionError, String(commitError));
    assert.equal(commitError.index, 1);
    assert.equal(commitError.operation, 'commit');
    assert.equal(commitError.error, 'constraint violation');
    assert.equal(c.replica.findBy('Port_Group', 'name', 'pg_dup').length, 1);
  });

  it('follows changes made with ovn-nbctl: set toggles and map insert/delete/replace', async () => {
    const c = client(server.unixRemote);
    await c.start();
    const steps: string[][] = [
      ['ls-add', 'sw-nbctl', '--', 'lsp-add', 'sw-nbctl', 'pa', '--', 'lsp-add', 'sw-nbctl', 'pb'],
      ['lsp-set-addresses', 'pa', 'fa:16:3e:00:00:0a 10.0.0.10', 'router', 'unknown'],
      ['lsp-set-addresses', 'pa', 'router', 'fa:16:3e:00:00:0b 10.0.0.11'],
      ['set', 'Logical_Switch_Port', 'pa', 'options:a=1', 'options:b=2', 'external_ids:x=y', 'tag_request=3'],
      ['set', 'Logical_Switch_Port', 'pa', 'options:b=20', 'options:c=3', 'tag_request=4', 'up=true'],
      [
        'remove',
        'Logical_Switch_Port',
        'pa',
        'options',
        'a',
        '--',
        'remove',
        'Logical_Switch_Port',
        'pa',
        'options',
        'b=20',
      ],
      [
        'clear',
        'Logical_Switch_Port',
        'pa',
        'tag_request',
        'addresses',
        '--',
        'set',
        'Logical_Switch_Port',
        'pa',
        'up=false',
      ],
      ['lsp-set-port-security', 'pb', 'fa:16:3e:00:00:0c 10.0.0.12'],
      ['lsp-del', 'pb'],
      [
        'add',
        'Logical_Switch',
        'sw-nbctl',
        'other_config',
        'mcast_snoop=true',
        '--',
        'set',
        'Logical_Switch',
        'sw-nbctl',
        'external_ids:k=v',
      ],
      ['ls-del', 'sw-nbctl'],
    ];
    for (const step of steps) {
      await server.nbctl(...step);
      await waitFor(
        async () =>
          (await replicaMatchesServer(c, 'Logical_Switch_Port')) && (await replicaMatchesServer(c, 'Logical_Switch')),
        `the replica to match the server after ovn-nbctl ${step.join(' ')}`,
      );
    }
  });

  it('monitors what the server’s schema has and warns about the rest (an older OVN)', async () => {
    const warnings: object[] = [];
    const logger = { info() {}, debug() {}, warn: (object: object) => warnings.push(object) };
    const c = new OvsdbClient({
      remotes: [server.unixRemote],
      database: 'OVN_Northbound',
      tables: { Logical_Switch: ['name', 'future_column'], Future_Table: 'all' },
      logger,
    });
    clients.push(c);
    await c.start();
    await server.nbctl('ls-add', 'sw-partial');
    const row = await waitFor(() => c.replica.findOne('Logical_Switch', 'name', 'sw-partial'), 'the switch');
    assert.deepEqual(Object.keys(row).sort(), ['_uuid', 'name']);
    assert.deepEqual(c.replica.table('Future_Table').size, 0);
    assert.deepEqual(warnings, [
      {
        remote: server.unixRemote,
        database: 'OVN_Northbound',
        missing: ['Logical_Switch.future_column', 'Future_Table'],
      },
    ]);
    await server.nbctl('ls-del', 'sw-partial');
  });

  it('answers the server’s echo probes', async () => {
    // A listener whose inactivity probe is 1 s (the shortest ovsdb-server allows), with our own
    // echo off, so the server is the one probing.
    const port = await freePort();
    await server.nbctl(
      'set-connection',
      `ptcp:${port}:127.0.0.1`,
      '--',
      'set',
      'Connection',
      '.',
      'inactivity_probe=1000',
    );
    await waitFor(() => canConnect({ host: '127.0.0.1', port }), 'the probing listener');
    const c = client(`tcp:127.0.0.1:${port}`, { echoIntervalMs: 0 });
    let disconnects = 0;
    c.on('disconnected', () => disconnects++);
    await c.start();
    await waitFor(() => c.serverEchoesAnswered >= 3, 'three server probes answered');
    assert.equal(disconnects, 0);
    assert.equal(c.reconnects, 0);
    assert.equal(c.connected, true);
    await server.nbctl('del-connection');
  });

  it('keeps a connection up across many of its own echo intervals', async () => {
    const c = client(server.unixRemote, { echoIntervalMs: 30 });
    let disconnects = 0;
    c.on('disconnected', () => disconnects++);
    await c.start();
    await waitFor(() => c.echoRepliesReceived >= 10, 'ten echo round trips');
    assert.equal(disconnects, 0);
    assert.equal(c.reconnects, 0);
    assert.equal(c.connected, true);
  });

  it('drops a connection whose server stopped answering, and comes back when it answers again', async () => {
    const c = client(server.unixRemote, { echoIntervalMs: 50 });
    await c.start();
    const disconnected = new Promise<Error | undefined>((resolve) => c.once('disconnected', resolve));
    server.signal('SIGSTOP');
    try {
      const reason = await disconnected;
      assert.match(reason?.message ?? '', /no answer to echo/);
      assert.equal(c.connected, false);
      await assert.rejects(c.transact([op.comment('x')]), OvsdbNotConnected);
    } finally {
      server.signal('SIGCONT');
    }
    await waitFor(() => c.connected && c.reconnects === 1, 'the client to reconnect');
  });

  it('close() stops everything: pending start rejects, no timers or sockets are left', async () => {
    const before = process.getActiveResourcesInfo();
    const count = (resources: string[], kind: string) => resources.filter((r) => r === kind).length;

    const c = client(server.unixRemote, { echoIntervalMs: 10 });
    await c.start();
    await c.close();
    assert.equal(c.connected, false);
    await assert.rejects(c.transact([op.comment('after close')]), OvsdbNotConnected);

    // A client that never reaches a server is still sleeping between attempts when closed.
    const lost = client(`unix:${server.dir}/nobody.sock`, { backoff: { initialMs: 60_000, maxMs: 60_000 } });
    const starting = lost.start().catch((error: unknown) => error);
    await waitFor(
      () => count(process.getActiveResourcesInfo(), 'Timeout') > count(before, 'Timeout'),
      'the backoff timer',
    );
    await lost.close();
    assert.match(String(await starting), /closed before the first sync/);

    const left = process.getActiveResourcesInfo();
    for (const kind of ['Timeout', 'PipeWrap', 'TCPSocketWrap']) {
      assert.equal(count(left, kind), count(before, kind), `${kind} left behind`);
    }
  });
});
