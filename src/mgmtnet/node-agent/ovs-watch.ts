/**
 * Wakes the node agent when the node's OVS changes, so an interface lost to an OVS restart, a
 * reboot or someone's `ovs-vsctl` is put back at once instead of at the next timed pass: an
 * `ovsdb-client monitor` of the Interface table, run where the agent's commands run. Any line it
 * prints is a change (the first is the table as it is); when it exits (ovsdb-server restarted) that
 * is a change too, and it is started again after a pause. The timed pass stays as the safety net.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** Between restarts of the monitor while ovsdb-server is away: a pace, not a timeout. */
const RESTART_PAUSE_MS = 1_000;

export interface OvsWatch {
  stop(): void;
}

export function watchOvsInterfaces(prefix: readonly string[], onChange: () => void): OvsWatch {
  let child: ChildProcess | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    const [file, ...args] = [
      ...prefix,
      'ovsdb-client',
      'monitor',
      'Open_vSwitch',
      'Interface',
      'name,external_ids,mtu_request,mac,ofport',
    ];
    child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout!.on('data', () => onChange());
    child.once('error', () => undefined);
    child.once('close', () => {
      if (stopped) return;
      onChange();
      timer = setTimeout(start, RESTART_PAUSE_MS);
    });
  };
  start();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      child?.kill();
    },
  };
}
