/**
 * Production's shape in the lab, broken on purpose: three `octonet serve` replicas share one
 * PostgreSQL, over an OVN whose NB and SB are 3-member RAFT clusters with two ovn-northd
 * (`lab up --cluster`), while 8 clients write networks, ports, routers and floating IPs through
 * the replicas' list (a refused connection goes to the next replica, as keystoneauth retries) and
 * two VMs on two nodes pass traffic. One fault at a time: a replica killed with SIGKILL, the NB
 * leader killed, the active ovn-northd killed, PostgreSQL restarted, a node's ovn-controller
 * restarted, the NB leader cut off from its peers.
 *
 * After each: no request got a 500 (503s are Neutron's with Retry-After; a request in flight to
 * the killed replica may go unanswered), every write acknowledged with a 2xx is in the database
 * and in the NB, no address or MAC is handed out twice, and the VMs reach each other. The error
 * window, the recovery time and the traffic lost are printed, not asserted.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Lab } from '../../src/lab/lab.js';
import { Client } from '../fixtures/api.js';
import type { Json } from '../fixtures/json.js';
import { createTestDatabase, startPostgresCluster, type PostgresCluster } from '../fixtures/postgres.js';
import { startServeProcess, type ServeProcess } from '../fixtures/serve-process.js';
import { faultFigures, isOk, startMixedLoad, type Outcome } from '../faults/load.js';
import { assertPing, created, notRoot, pollUntil, useLab } from './lab-fixture.js';

const REPLICAS = 3;
/** How long each fault lasts before it is undone. */
const FAULT_MS = 3000;
const WARM_UP_SUCCESSES = 30;
/** Short database timeouts, so PostgreSQL's absence costs seconds (as in the database fault suite). */
const DATABASE_CONFIG = { database_connect_timeout: 1, database_statement_timeout: 2, database_retry_budget: 2 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Fault {
  readonly name: string;
  inject(): Promise<void>;
  restore(): Promise<void>;
  /** Answers this fault may leave unanswered: those sent to a replica killed mid-request. */
  readonly mayDrop?: (outcome: Outcome) => boolean;
}

describe('three replicas on PostgreSQL over a clustered OVN: faults under load', { skip: notRoot }, () => {
  const { lab } = useLab({ name: 'oct-clu', nodes: 2, cluster: true });
  let postgres: PostgresCluster;
  let databaseUrl: string;
  const replicas: ServeProcess[] = [];
  const ports: number[] = [];
  const table: Record<string, unknown>[] = [];
  let admin: Client;
  let external: Json;
  /** The VMs' ping: vm1 on node1 → vm2 on node2, all through the faults. */
  let vm2Address: string;

  const config = () => ({
    ...DATABASE_CONFIG,
    quotas: { network: -1, port: -1, router: -1, floatingip: -1 },
    ovn: { nb_connection: lab().nb, sb_connection: lab().sb },
  });
  const startReplica = (port?: number) => startServeProcess(databaseUrl, { config: config(), port });

  before(async () => {
    // Durable and private: this suite restarts it.
    postgres = await startPostgresCluster({ durable: true });
    databaseUrl = (await createTestDatabase(postgres.adminUrl)).url;
    // One at a time: the first creates the schema and claims the NB; the others find both done.
    for (let i = 0; i < REPLICAS; i++) {
      const replica = await startReplica();
      replicas.push(replica);
      ports.push(Number(new URL(replica.url).port));
    }
    admin = new Client(replicas[1]!.url, null);
    await plugVms(lab(), admin);
    // Floating IPs come from a VLAN of physnet1 with room for every fault's creates.
    external = (
      await created(admin, '/v2.0/networks', {
        network: {
          name: 'fips',
          'router:external': true,
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': 300,
        },
      })
    ).network;
    await created(admin, '/v2.0/subnets', {
      subnet: { network_id: external.id, cidr: '100.64.0.0/16', ip_version: 4, enable_dhcp: false },
    });
  });
  after(async () => {
    if (table.length) console.table(table);
    await Promise.all(replicas.map((r) => r.stop()));
    postgres?.stop();
  });

  async function plugVms(target: Lab, api: Client): Promise<void> {
    const net = (await created(api, '/v2.0/networks', { network: { name: 'clu' } })).network;
    await created(api, '/v2.0/subnets', { subnet: { network_id: net.id, cidr: '10.90.0.0/24', ip_version: 4 } });
    const addresses: string[] = [];
    for (const node of ['node1', 'node2']) {
      const port = (
        await created(api, '/v2.0/ports', {
          port: {
            network_id: net.id,
            name: `vm-${node}`,
            'binding:host_id': node,
            device_owner: 'compute:nova',
            port_security_enabled: false,
            security_groups: [],
          },
        })
      ).port;
      await target.createVm({ node, port: port.id, name: `vm-${node}` });
      addresses.push(port.fixed_ips[0].ip_address);
    }
    vm2Address = addresses[1]!;
    await assertPing(target, target.vmCommand('vm-node1', []), vm2Address);
  }

  /** NB names of a table's rows (`neutron-<id>` for switches and routers, the port id for ports). */
  async function nbNames(table: string): Promise<Set<string>> {
    return new Set((await lab().nbctl('--bare', '--columns=name', 'list', table)).split(/\s+/).filter(Boolean));
  }

  async function runFault(fault: Fault): Promise<void> {
    const urls = ports.map((port) => `http://127.0.0.1:${port}`);
    const load = startMixedLoad(urls, 8, { routers: true, floatingNetwork: external.id });
    // Traffic through the fault: one ping a 100 ms, counted afterwards.
    const [file, ...args] = lab().vmCommand('vm-node1', ['ping', '-i', '0.1', vm2Address]);
    const ping = spawn(file!, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let pinged = '';
    ping.stdout.on('data', (chunk: Buffer) => (pinged += chunk.toString()));
    const pingDone = new Promise((resolve) => ping.once('close', resolve));
    let restoredAt = 0;
    let injectedAt = 0;
    try {
      await load.until((seen) => seen.filter((o) => isOk(o.status)).length >= WARM_UP_SUCCESSES);
      injectedAt = Date.now();
      await fault.inject();
      await sleep(FAULT_MS);
      await fault.restore();
      restoredAt = Date.now();
      const back = (o: Outcome) => isOk(o.status) && o.ended >= restoredAt;
      await load.until((seen) => seen.filter((o) => back(o) && o.write).length >= 5, 90_000);
    } finally {
      await load.stop();
      // `ip netns exec` execs ping itself, so this pid is ping's: SIGINT makes it print its summary.
      ping.kill('SIGINT');
      await pingDone;
    }
    const outcomes = [...load.outcomes];

    const wrong = outcomes.filter(
      (o) => !(isOk(o.status) || (o.status === 503 && !o.problem)) && !(fault.mayDrop?.(o) ?? false),
    );
    assert.deepEqual(
      wrong.slice(0, 5).map((o) => `${o.op} → ${o.status} ${o.problem ?? o.detail ?? ''}`),
      [],
      `${fault.name}: ${wrong.length} answers that are neither 2xx nor a proper 503`,
    );
    for (const replica of replicas) assert.ok(replica.running(), `a replica exited during ${fault.name}`);

    // Every acknowledged write is in the database (asked of each replica in turn) and in the NB
    // (floating IPs the load makes are unassociated: ML2/OVN writes no NB row for those).
    const { networks, ports: createdPorts, routers, floatingips } = load.acknowledged;
    const api = (i: number) => new Client(replicas[i % REPLICAS]!.url, null);
    const kinds = { networks, ports: createdPorts, routers, floatingips };
    let i = 0;
    for (const [collection, ids] of Object.entries(kinds)) {
      for (const id of ids) {
        const response = await api(i++).get(`/v2.0/${collection}/${id}`);
        assert.equal(response.status, 200, `${fault.name}: acknowledged ${collection} ${id} is gone`);
      }
    }
    await pollUntil(async () => {
      const [switches, lsps, lrs] = await Promise.all([
        nbNames('Logical_Switch'),
        nbNames('Logical_Switch_Port'),
        nbNames('Logical_Router'),
      ]);
      return (
        networks.every((id) => switches.has(`neutron-${id}`)) &&
        createdPorts.every((id) => lsps.has(id)) &&
        routers.every((id) => lrs.has(`neutron-${id}`))
      );
    }, `${fault.name}: every acknowledged network, port and router in the NB`);

    // Nothing handed out twice.
    const all = (await admin.get('/v2.0/ports')).body.ports as Json[];
    assert.equal(new Set(all.map((p) => p.id)).size, all.length, 'a port was listed twice');
    // Unique within a network, as Neutron's (network_id, mac_address) constraint has it: two
    // networks may share a random MAC (about 1 % of runs at 700 ports), and that is no fault.
    const macs = all.map((p) => `${p.network_id}/${p.mac_address}`);
    assert.equal(new Set(macs).size, macs.length, 'a MAC address was handed out twice in one network');
    const addresses = all.flatMap((p) => p.fixed_ips.map((f: Json) => `${f.subnet_id}/${f.ip_address}`));
    assert.equal(new Set(addresses).size, addresses.length, 'an IP address was handed out twice');
    // Nothing leaked: every address the subnets count as used belongs to a port.
    const availability = (await admin.get('/v2.0/network-ip-availabilities')).body.network_ip_availabilities as Json[];
    const used = availability.reduce((n, a) => n + Number(a.used_ips), 0);
    assert.equal(used, addresses.length, 'addresses allocated to no port');

    await assertPing(lab(), lab().vmCommand('vm-node1', []), vm2Address);

    const sent = Number(/(\d+) packets transmitted/.exec(pinged)?.[1] ?? 0);
    const received = Number(/(\d+) received/.exec(pinged)?.[1] ?? 0);
    // Traffic stops no longer than the fault lasts (one ping each 100 ms; a second's slack for
    // the ping in flight and ARP).
    assert.ok(
      (sent - received) * 100 <= restoredAt - injectedAt + 1000,
      `${fault.name}: ${sent - received} pings lost, over ${restoredAt - injectedAt} ms of fault`,
    );
    const row = {
      fault: fault.name,
      ...faultFigures(outcomes, restoredAt),
      status503: outcomes.filter((o) => o.status === 503).length,
      unanswered: outcomes.filter((o) => o.status === 'no-answer').length,
      created: Object.values(kinds).reduce((n, ids) => n + ids.length, 0),
      pingLostMs: (sent - received) * 100,
    };
    table.push(row);
    console.log(`fault ${JSON.stringify(row)}`);
  }

  it('runs NB and SB as RAFT clusters with one active ovn-northd', async () => {
    const central = lab().central;
    assert.equal(central.members().length, 3);
    assert.ok(await central.leader('nb'), 'the NB has a leader');
    assert.ok(await central.leader('sb'), 'the SB has a leader');
    assert.ok(await central.activeNorthd(), 'one ovn-northd holds the lock');
  });

  it('a replica killed with SIGKILL: the others serve its clients', async () => {
    let killedUrl = '';
    await runFault({
      name: 'API replica kill -9',
      inject: async () => {
        killedUrl = replicas[0]!.url;
        await replicas[0]!.kill();
      },
      restore: async () => {
        replicas[0] = await startReplica(ports[0]);
      },
      mayDrop: (o) => o.status === 'no-answer' && o.url === killedUrl,
    });
  });

  // A replica whose write failed on the dying leader runs its own full pass after one another
  // replica was running (repair/loop.ts), and retries that write by key (repair/retry.ts).
  it('the NB RAFT leader killed: a new leader, and the replicas follow it', async () => {
    const central = lab().central;
    const leader = (await central.leader('nb'))!;
    await runFault({
      name: 'NB RAFT leader kill -9',
      inject: () => central.kill(leader, 'nb'),
      restore: () => central.restart(leader, 'nb'),
    });
  });

  it('the active ovn-northd killed: the standby takes the lock', async () => {
    const central = lab().central;
    const active = (await central.activeNorthd())!;
    await runFault({
      name: 'ovn-northd (active) kill -9',
      inject: async () => {
        await central.killNorthd(active);
        await pollUntil(async () => {
          const now = await central.activeNorthd();
          return now !== undefined && now !== active;
        }, 'the standby ovn-northd became active');
      },
      restore: () => central.restartNorthd(active),
    });
  });

  // A create whose OVN write (postcommit) failed because PostgreSQL went away between its commit
  // and the driver's read of it is retried by key with backoff, and at once when the database is
  // back (repair/retry.ts, with a full pass on recovery): not left to the periodic pass.
  it('PostgreSQL restarted: 503s while it is away, then every replica serves again', async () => {
    await runFault({
      name: 'PostgreSQL restart (stop -m fast)',
      inject: async () => postgres.halt('fast'),
      restore: async () => postgres.resume(),
    });
  });

  it("a node's ovn-controller restarted: its VM keeps its traffic", async () => {
    await runFault({
      name: 'ovn-controller restart (node2)',
      inject: () => lab().restartOvnController('node2'),
      restore: async () => undefined,
    });
  });

  it('the NB leader partitioned from its peers: the majority elects another, the replicas move', async () => {
    const central = lab().central;
    const leader = (await central.leader('nb'))!;
    await runFault({
      name: 'NB leader partitioned (iptables)',
      inject: () => central.partition(leader),
      restore: () => central.heal(leader),
    });
  });
});
