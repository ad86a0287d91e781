/**
 * The management-network config octonet renders, read by Debian's real octavia-health-manager: the
 * fragment of `octonet mgmt-net` (`renderIni`, what `apply --octavia-config-dir` writes) for a node
 * is the health manager's second config file. Every key in it must be an option Octavia registers
 * (oslo.config ignores unknown keys silently, so the test asks Octavia's own option list), the
 * health manager must start on it without an error, and a heartbeat signed with the rendered key
 * for an amphora Octavia's database knows must advance `amphora_health.last_update`; one signed
 * with another key must not.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { describe, it } from 'node:test';
import pg from 'pg';
import { generateHeartbeatKey, octaviaOptions, renderIni } from '../../src/mgmtnet/octavia-config.js';
import { encodeHeartbeat } from '../../src/mgmtnet/node-agent/heartbeat.js';
import { useKeystone } from '../fixtures/keystone.js';
import { insertAmphoraRows, useOctavia } from '../fixtures/octavia.js';
import { eventually } from '../fixtures/ovn-central.js';

/** Prints `section.key` for every key of the INI on stdin that Octavia does not register. */
const UNKNOWN_OPTIONS = `
import configparser, sys
from octavia import opts
known = {(group or "DEFAULT", o.dest) for group, options in opts.list_opts() for o in options}
ini = configparser.ConfigParser()
ini.read_string(sys.stdin.read())
for section in ini.sections():
    for key in ini[section]:
        if (section, key.replace("-", "_")) not in known:
            print(section + "." + key)
`;

describe('real octavia-health-manager on the rendered management-network config', () => {
  const key = generateHeartbeatKey();
  const mgmtNetworkId = randomUUID();
  const amphoraSecurityGroupId = randomUUID();
  const hm1 = { node: 'hm1', addresses: ['127.0.0.1'] };
  const fragment = (port: number, controllers = [hm1]) =>
    renderIni(
      octaviaOptions({
        controllers,
        bindPort: port,
        mgmtNetworkId,
        amphoraSecurityGroupId,
      }),
      hm1,
      key,
    );
  const keystone = useKeystone();
  const octavia = useOctavia(() => ({ keystone, extraConfig: fragment }));

  it('every rendered key is an option Octavia knows', () => {
    const unknown = execFileSync('/usr/bin/python3', ['-c', UNKNOWN_OPTIONS], {
      input: fragment(5555),
      encoding: 'utf8',
    });
    assert.equal(unknown.trim(), '', `unknown to Octavia: ${unknown}`);
  });

  it('a heartbeat signed with the rendered key advances amphora_health.last_update', async () => {
    assert.ok(octavia.running().includes('octavia-health-manager'), octavia.log('octavia-health-manager'));
    const db = new pg.Client({ connectionString: octavia.databaseUrl });
    await db.connect();
    const socket = createSocket('udp4');
    try {
      const { amphoraId } = await insertAmphoraRows(db, keystone.projects.a.id);
      // A health row from an earlier heartbeat, as every amphora past its first has: Octavia's
      // `replace` then updates it. Without one, two heartbeats handled at once by the health
      // manager's workers both insert it and the second logs a UniqueViolation (Octavia's race,
      // seen in CI when a resend below overtook the first heartbeat).
      const seeded = new Date('2000-01-01T00:00:00Z');
      await db.query('INSERT INTO amphora_health (amphora_id, last_update, busy) VALUES ($1, $2, false)', [
        amphoraId,
        seeded,
      ]);
      const lastUpdate = async (): Promise<Date | undefined> =>
        (await db.query('SELECT last_update FROM amphora_health WHERE amphora_id = $1', [amphoraId])).rows[0]
          ?.last_update as Date | undefined;
      let seq = 0;
      const send = (signingKey: string) => {
        const datagram = encodeHeartbeat({ id: amphoraId, seq: ++seq, ver: 2, listeners: {}, pools: {} }, signingKey);
        return new Promise<void>((resolve, reject) =>
          socket.send(datagram, octavia.healthManagerPort, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
        );
      };

      // Another key: Octavia drops the packet. Then the right one, until Octavia has recorded it.
      await send(generateHeartbeatKey());
      const first = await eventually(async () => {
        await send(key);
        const at = await lastUpdate();
        assert.ok(at && at > seeded, 'last_update advanced past the seeded one');
        return at;
      }, 60_000);
      await eventually(() =>
        assert.match(
          octavia.log('octavia-health-manager'),
          /exception processing a heartbeat message/,
          'the packet with the wrong key was dropped',
        ),
      );
      const later = await eventually(async () => {
        await send(key);
        const at = await lastUpdate();
        assert.ok(at && at > first, 'last_update advanced');
        return at;
      }, 60_000);
      assert.ok(later > first);
      const log = octavia.log('octavia-health-manager');
      assert.doesNotMatch(log, / ERROR |ConfigFileValueError|NoSuchOpt/, 'the health manager logged no error');
    } finally {
      socket.close();
      await db.end();
    }
  });

  it('a controller joins: the re-rendered list reaches the running health manager on SIGHUP', async () => {
    const port = octavia.healthManagerPort;
    octavia.reload('octavia-health-manager', fragment(port, [hm1, { node: 'hm2', addresses: ['127.0.0.2'] }]));
    const changed = `Option health_manager.controller_ip_port_list changed from [127.0.0.1:${port}] to [127.0.0.1:${port}, 127.0.0.2:${port}]`;
    // The parent mutates its config and passes the SIGHUP on to the listener and the checker.
    await eventually(() =>
      assert.ok(
        octavia.log('octavia-health-manager').split(changed).length - 1 >= 2,
        `the parent and its listener reloaded:\n${octavia.log('octavia-health-manager').slice(-3000)}`,
      ),
    );
    assert.ok(octavia.running().includes('octavia-health-manager'), 'still running, not restarted');
  });
});
