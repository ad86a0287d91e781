/**
 * Timestamps from the databases themselves, taken in this process as OVSDB monitors report
 * changes: each node's own OVS database (a VIF with `external_ids:iface-id` plugged), the SB
 * (`Port_Binding.chassis` set by ovn-controller's claim, `Port_Binding.up` once its flows are in),
 * the NB (`Logical_Switch_Port.up` set by northd; LSPs deleted and inserted). Events are kept per
 * port id, so a figure is a difference of two monitor timestamps, not of a command's duration.
 */
import {
  OvsdbClient,
  type GenericRow,
  type LogicalSwitchPortRow,
  type NbTables,
  type PortBindingRow,
  type SbTables,
} from '../../src/drivers/ovn/ovsdb/index.js';
import { now } from './stats.js';

export type PortEvent =
  | 'plugged' // OVS Interface with iface-id = port id appeared
  | 'unplugged'
  | 'chassis' // SB Port_Binding.chassis went from empty to set
  | 'pb-up' // SB Port_Binding.up became true
  | 'nb-up' // NB Logical_Switch_Port.up became true
  | 'nb-down'
  | 'lsp-insert'
  | 'lsp-delete';

/** Times of events per port; waiters resolve on the first event at or after a given time. */
export class PortEvents {
  private readonly times = new Map<string, number[]>();
  private readonly waiters = new Set<{ key: string; since: number; resolve: (t: number) => void }>();

  mark(port: string, event: PortEvent, at = now()): void {
    const key = `${port} ${event}`;
    const list = this.times.get(key);
    if (list) list.push(at);
    else this.times.set(key, [at]);
    for (const waiter of this.waiters) {
      if (waiter.key === key && at >= waiter.since) {
        this.waiters.delete(waiter);
        waiter.resolve(at);
      }
    }
  }

  first(port: string, event: PortEvent, since: number): number | undefined {
    return this.times.get(`${port} ${event}`)?.find((t) => t >= since);
  }

  /** The first `event` of `port` at or after `since`; rejects after `timeoutMs`. */
  wait(port: string, event: PortEvent, since: number, timeoutMs: number): Promise<number> {
    const seen = this.first(port, event, since);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        key: `${port} ${event}`,
        since,
        resolve: (t: number) => {
          clearTimeout(timer);
          resolve(t);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`port ${port}: no ${event} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Drops everything recorded (between phases; keeps memory flat). */
  clear(): void {
    this.times.clear();
  }
}

const becameTrue = (row: { up: boolean | null }, old: { up: boolean | null } | undefined) =>
  row.up === true && old?.up !== true;

export interface Monitors {
  events: PortEvents;
  /** The NB client (also used to delete LSPs behind octonet's back). */
  nb: OvsdbClient<NbTables>;
  close(): Promise<void>;
}

/** Connects to the NB, the SB and every node's OVS database, and records port events. */
export async function openMonitors(lab: { nb: string; sb: string; nodeRunDirs: string[] }): Promise<Monitors> {
  const events = new PortEvents();
  const nb = new OvsdbClient<NbTables>({
    remotes: [lab.nb],
    database: 'OVN_Northbound',
    tables: { Logical_Switch: ['name', 'ports'], Logical_Switch_Port: ['name', 'up'] },
  });
  nb.onChange((changes) => {
    const at = now();
    for (const change of changes) {
      if (change.table !== 'Logical_Switch_Port') continue;
      if (change.kind === 'delete') {
        events.mark(change.old!.name, 'lsp-delete', at);
        continue;
      }
      const row = change.row as LogicalSwitchPortRow;
      const old = change.old as LogicalSwitchPortRow | undefined;
      if (change.kind === 'insert') events.mark(row.name, 'lsp-insert', at);
      if (becameTrue(row, old)) events.mark(row.name, 'nb-up', at);
      else if (old?.up === true && row.up !== true) events.mark(row.name, 'nb-down', at);
    }
  });
  const sb = new OvsdbClient<SbTables>({
    remotes: [lab.sb],
    database: 'OVN_Southbound',
    tables: { Port_Binding: ['logical_port', 'chassis', 'up'] },
  });
  sb.onChange((changes) => {
    const at = now();
    for (const change of changes) {
      if (change.table !== 'Port_Binding' || change.kind === 'delete') continue;
      const row = change.row as PortBindingRow;
      const old = change.old as PortBindingRow | undefined;
      if (row.chassis && !old?.chassis) events.mark(row.logical_port, 'chassis', at);
      if (becameTrue(row, old)) events.mark(row.logical_port, 'pb-up', at);
    }
  });
  const ovs = lab.nodeRunDirs.map((dir) => {
    const client = new OvsdbClient({
      remotes: [`unix:${dir}/db.sock`],
      database: 'Open_vSwitch',
      tables: { Interface: ['name', 'external_ids'] },
    });
    const ifaceId = (row: GenericRow | undefined) =>
      (row?.external_ids as Record<string, string> | undefined)?.['iface-id'];
    client.onChange((changes) => {
      const at = now();
      for (const change of changes) {
        const id = ifaceId(change.row);
        const before = ifaceId(change.old);
        if (id && id !== before) events.mark(id, 'plugged', at);
        if (before && id !== before) events.mark(before, 'unplugged', at);
      }
    });
    return client;
  });
  const clients = [nb, sb, ...ovs];
  try {
    // start() keeps retrying an unreachable server; a lab that is up answers at once.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the OVSDB monitors did not connect within 30 s')), 30_000);
    });
    await Promise.race([Promise.all(clients.map((c) => c.start())), timeout]).finally(() => clearTimeout(timer));
  } catch (error) {
    await Promise.all(clients.map((c) => c.close()));
    throw error;
  }
  return { events, nb, close: async () => void (await Promise.all(clients.map((c) => c.close()))) };
}
