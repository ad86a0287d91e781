/**
 * keepalived in a VM namespace, configured the way Octavia configures an amphora pair
 * (octavia/amphorae/drivers/keepalived/jinja/templates/keepalived_base.template): unicast VRRP
 * between the amphorae's own addresses, `nopreempt`, `accept`, gratuitous-ARP refresh, the VIP as
 * the only virtual address. Both instances start as BACKUP: with `nopreempt` keepalived ignores an
 * initial MASTER state anyway, and the higher priority wins the first election.
 *
 * `kill` is an amphora's death: SIGKILL, so no priority-0 "goodbye" advert tells the peer, which
 * must notice the silence (master_down_interval = 3 × advert_int + skew). The daemon runs in the
 * VM's namespace, so `lab down` stops it with everything else there.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './processes.js';
import { readVmRecord } from './records.js';
import { sleep } from './run.js';
import { LabUsageError, VM_INTERFACE, type LabLayout } from './topology.js';

export interface VrrpOptions {
  /** The address keepalived holds on the master (the load balancer's VIP). */
  vip: string;
  /** This amphora's own address on the VIP network: the source of its unicast adverts. */
  self: string;
  /** The other amphorae's addresses. */
  peers: readonly string[];
  /** Octavia: 100 for the MASTER role, 90 for BACKUP. */
  priority: number;
  /** Seconds between adverts (Octavia's `vrrp_advert_int`, default 1); below 1 needs VRRPv3. */
  advertInt: number;
  /** 2 (Octavia's, with PASS authentication) or 3 (no authentication; sub-second adverts). */
  vrrpVersion?: 2 | 3;
  /** Octavia's `amp_vrrp_id` (default 1). */
  virtualRouterId?: number;
}

export interface Keepalived {
  readonly vm: string;
  readonly pid: number;
  /** SIGKILL of keepalived and its VRRP child: the amphora died, no goodbye advert. */
  kill(): Promise<void>;
  /** SIGTERM, and waits until it is gone (it sends a priority-0 advert first). */
  stop(): Promise<void>;
  /**
   * Rewrites the configuration and sends SIGHUP, which keeps the VRRP state (Octavia's
   * `systemctl reload` after a failover replaced the peer).
   */
  reload(options: VrrpOptions): Promise<void>;
  /**
   * keepalived's own account of its VRRP state (the SIGUSR1 data dump): `State = BACKUP`,
   * `Master router = <address>` once it hears a master, and so on.
   */
  dump(): Promise<string>;
}

/** Octavia's defaults: `vrrp_garp_refresh_interval` 5 s, `vrrp_garp_refresh_count` 2. */
const GARP_REFRESH_S = 5;
const GARP_REFRESH_REPEAT = 2;

export function keepalivedConfig(name: string, options: VrrpOptions, iface: string = VM_INTERFACE): string {
  const version = options.vrrpVersion ?? 2;
  if (version === 2 && options.advertInt < 1) {
    throw new LabUsageError('VRRPv2 adverts are whole seconds; use vrrpVersion 3 for sub-second ones');
  }
  const authentication =
    version === 2 ? ['  authentication {', '    auth_type PASS', '    auth_pass octonet', '  }'] : [];
  return [
    'global_defs {',
    `  router_id ${name}`,
    `  vrrp_version ${version}`,
    `  vrrp_garp_master_refresh ${GARP_REFRESH_S}`,
    `  vrrp_garp_master_refresh_repeat ${GARP_REFRESH_REPEAT}`,
    '}',
    'vrrp_instance octavia_vip {',
    '  state BACKUP',
    `  interface ${iface}`,
    `  virtual_router_id ${options.virtualRouterId ?? 1}`,
    `  priority ${options.priority}`,
    '  nopreempt',
    '  accept',
    `  garp_master_refresh ${GARP_REFRESH_S}`,
    `  garp_master_refresh_repeat ${GARP_REFRESH_REPEAT}`,
    `  advert_int ${options.advertInt}`,
    ...authentication,
    `  unicast_src_ip ${options.self}`,
    '  unicast_peer {',
    ...options.peers.map((peer) => `    ${peer}`),
    '  }',
    '  virtual_ipaddress {',
    `    ${options.vip}`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/** The process and its children (keepalived forks its VRRP process). */
function familyOf(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/)) {
      if (task) children.push(Number(task));
    }
  } catch {
    // Gone already.
  }
  return [pid, ...children];
}

/**
 * keepalived 2.2 writes its SIGUSR1 data dump to a fixed `/tmp/keepalived.data`: each instance runs
 * in its own mount namespace with its own directory bound on /tmp, so dumps never collide.
 */
const DUMP_NAME = 'keepalived.data';

async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

async function waitGone(pids: readonly number[], ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(20);
}

let starts = 0;

export async function startKeepalived(layout: LabLayout, vmName: string, options: VrrpOptions): Promise<Keepalived> {
  const vm = readVmRecord(layout, vmName);
  if (!vm) throw new LabUsageError(`lab ${layout.name} has no VM named ${vmName}`);
  const dir = join(layout.vmDir, `${vmName}.keepalived`);
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'keepalived.conf');
  writeFileSync(config, keepalivedConfig(vmName, options));
  // A unique pidfile name per start: a keepalived that is still exiting removes its own pidfiles
  // and would otherwise remove the new instance's (lab.md, Q3).
  const tag = `${process.pid}-${++starts}-${Date.now()}`;
  const logFile = join(dir, 'keepalived.log');
  const log = openSync(logFile, 'a');
  const logStart = fstatSync(log).size;
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const dumpFile = join(tmp, DUMP_NAME);
  // Every step execs the next, so `pid` below is keepalived itself.
  const privateTmp = [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    'sh',
    '-c',
    'mount --bind "$0" /tmp && exec "$@"',
    tmp,
  ];
  const argv = ['ip', 'netns', 'exec', vm.namespace, ...privateTmp, 'keepalived'];
  argv.push('--dont-fork', '--log-console', '--log-detail');
  argv.push('--vrrp', '--no-syslog', '--use-file', config);
  argv.push('--pid', join(dir, `main-${tag}.pid`), '--vrrp_pid', join(dir, `vrrp-${tag}.pid`));
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error(`keepalived did not start in ${vm.namespace}`);
  // keepalived is up once its VRRP process has entered its first state: before that, a signal
  // such as the data dump's SIGUSR1 may find it without its handlers and end it.
  const said = () => readFileSync(logFile, 'utf8').slice(logStart);
  const deadline = Date.now() + 30_000;
  while (!/Entering (BACKUP|MASTER|FAULT) STATE/.test(said())) {
    if (!isAlive(pid) || Date.now() > deadline) {
      throw new Error(`keepalived in ${vm.namespace} did not start: ${said().split('\n').slice(-5).join(' | ')}`);
    }
    await sleep(20);
  }
  return {
    vm: vmName,
    pid,
    async kill() {
      const family = familyOf(pid);
      // Children first: keepalived's VRRP child gets SIGTERM when its parent dies (PDEATHSIG) and
      // would then send the goodbye advert that a dead amphora never sends.
      for (const member of family.reverse()) {
        try {
          process.kill(member, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await waitGone(family);
    },
    async reload(next) {
      const reloads = () => readFileSync(logFile, 'utf8').split('Reload complete').length;
      const before = reloads();
      writeFileSync(config, keepalivedConfig(vmName, next));
      process.kill(pid, 'SIGHUP');
      await until(() => reloads() > before, `keepalived in ${vm.namespace} to reload`);
    },
    async dump() {
      rmSync(dumpFile, { force: true });
      let text = '';
      let askedAt = 0;
      // The VRRP topology is complete once the next section has begun. Signals of one kind do not
      // queue: one that arrives while the last dump is still being written is lost, so ask again.
      await until(() => {
        text = existsSync(dumpFile) ? readFileSync(dumpFile, 'utf8') : '';
        if (!text && Date.now() - askedAt >= 1000) {
          process.kill(pid, 'SIGUSR1');
          askedAt = Date.now();
        }
        return text.includes('< VRRP Sockpool >');
      }, `keepalived in ${vm.namespace} to write its data dump`);
      return text.slice(text.indexOf('< VRRP Topology >'), text.indexOf('< VRRP Sockpool >'));
    },
    async stop() {
      const family = familyOf(pid);
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        return;
      }
      await waitGone(family);
    },
  };
}
