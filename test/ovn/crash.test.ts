/**
 * octonet killed between the database commit and the NB write: the NB is frozen (SIGSTOP) so the
 * port's postcommit hangs after its transaction committed, then `serve` is SIGKILLed. A restarted
 * `serve` finds the port in the database and not in the NB, and writes it; rows of resources that
 * vanished meanwhile are removed. Real processes, real signals; no fault injection.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../fixtures/databases.js';
import { createBackendDatabase, type TestDatabase } from '../fixtures/databases.js';
import { Client } from '../fixtures/api.js';
import { eventually, useOvnCentral } from '../fixtures/ovn-central.js';
import { startServeProcess, type ServeProcess } from '../fixtures/serve-process.js';

for (const backend of BACKENDS) {
  describe(`OVN: octonet killed between commit and NB write (${backend})`, () => {
    const ovn = useOvnCentral();
    let database: TestDatabase;
    let serve: ServeProcess | undefined;
    const start = async () => {
      serve = await startServeProcess(database.url, {
        config: { ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } },
      });
      return new Client(serve.url, null);
    };
    before(async () => {
      database = await createBackendDatabase(backend);
    });
    after(async () => {
      ovn.freezeNb(false);
      await serve?.stop();
      await database.drop();
    });
    const lsp = (name: string) => ovn.nbRows('Logical_Switch_Port').find((r) => r.name === name);

    it('the port committed before the crash is in the NB after the restart', async () => {
      let api = await start();
      const net = (await api.post('/v2.0/networks', { network: { name: 'crash' } })).body.network;
      await api.post('/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.80.0.0/24', ip_version: 4 } });

      ovn.freezeNb(true);
      const pending = api.post('/v2.0/ports', { port: { network_id: net.id, name: 'orphan' } }).catch(() => undefined);
      // The create has committed once the port can be read back; its NB write is now stuck.
      const port = await eventually(async () => {
        const r = await api.get('/v2.0/ports?name=orphan');
        assert.equal(r.body.ports.length, 1);
        return r.body.ports[0];
      });
      await serve!.kill();
      await pending;
      ovn.freezeNb(false);
      // The LSP's transaction may already sit in the frozen server's socket, and commit when it
      // thaws (the project's group is in the NB since its network, so the port's own write is the
      // one stuck): the NB must lack the port for the restart to prove anything.
      ovn.nbctl('--if-exists', 'lsp-del', port.id);
      assert.equal(lsp(port.id), undefined, 'the NB never heard of the port');
      // While octonet is down, a switch of a network it does not have appears.
      ovn.nbctl('ls-add', 'neutron-00000000-0000-0000-0000-0000000dead1');

      api = await start();
      const row = lsp(port.id);
      assert.ok(row, 'written by the full pass at start, before the API opened');
      assert.equal(row.external_ids['neutron:port_name'], 'orphan');
      assert.equal(
        ovn.nbRows('Logical_Switch').find((r) => r.name.endsWith('dead1')),
        undefined,
      );
      const metrics = (await api.get('/metrics')).text;
      assert.match(metrics, /octonet_ovn_full_syncs_total\{trigger="start"\} 1/);
    });
  });
}
