/**
 * What changed in an OVN NB between two dumps (`ovsdb-client dump`, which leaves `_version` out),
 * as one line per kind of change: `Table.column` for a plain column, `Table.column:key` for a map key,
 * `Table +row` / `Table -row` for a row made or removed. Row counts are left out on purpose: the
 * documented list names kinds of writes, not how many rows of a cloud they touch.
 */
import { execFileSync } from 'node:child_process';

/** Debian's ovsdb-client (openvswitch-common), by name: it is no npm binary. */
const OVSDB_CLIENT = 'ovsdb-client';

type Value = string | number | boolean | string[] | Record<string, string>;
type Row = Record<string, Value>;
export type NbDump = Map<string, Map<string, Row>>;

/** Columns (and map keys) that OVN itself (ovn-northd, ovn-controller) writes, not a CMS. */
const WRITTEN_BY_OVN: Record<string, readonly string[]> = {
  NB_Global: ['nb_cfg', 'nb_cfg_timestamp', 'sb_cfg', 'sb_cfg_timestamp', 'hv_cfg', 'hv_cfg_timestamp'],
  Logical_Switch_Port: ['up', 'dynamic_addresses'],
};
const KEYS_WRITTEN_BY_OVN = new Set([
  'NB_Global.options:mac_prefix',
  'NB_Global.options:svc_monitor_mac',
  'NB_Global.options:max_tunid',
  'NB_Global.options:northd_internal_version',
]);

function atom(value: unknown): string {
  if (Array.isArray(value) && (value[0] === 'uuid' || value[0] === 'named-uuid')) return String(value[1]);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function decode(value: unknown): Value {
  if (Array.isArray(value) && value[0] === 'set') return (value[1] as unknown[]).map(atom).sort();
  if (Array.isArray(value) && value[0] === 'map')
    return Object.fromEntries((value[1] as [unknown, unknown][]).map(([k, v]) => [atom(k), atom(v)]));
  if (Array.isArray(value)) return [atom(value)];
  return value as Value;
}

/** Every row of every NB table, by `_uuid`. */
export function dumpNb(remote: string): NbDump {
  const out = execFileSync(OVSDB_CLIENT, ['-f', 'json', 'dump', remote, 'OVN_Northbound'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const dump: NbDump = new Map();
  for (const line of out.split('\n').filter((l) => l.trim())) {
    const table = JSON.parse(line) as { caption: string; headings: string[]; data: unknown[][] };
    const name = table.caption.replace(/ table$/, '');
    const rows = new Map<string, Row>();
    for (const data of table.data) {
      const row: Row = {};
      table.headings.forEach((heading, i) => (row[heading] = decode(data[i])));
      rows.set(String((row._uuid as string[])[0]), row);
    }
    dump.set(name, rows);
  }
  return dump;
}

const isMap = (value: Value | undefined): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each change as [kind, an example "before → after"]. */
function columnChanges(
  table: string,
  column: string,
  before: Value | undefined,
  after: Value | undefined,
): [string, string][] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (isMap(before) && isMap(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...keys]
      .filter((k) => before[k] !== after[k])
      .map((k) => [`${table}.${column}:${k}`, `${JSON.stringify(before[k])} → ${JSON.stringify(after[k])}`]);
  }
  return [[`${table}.${column}`, `${JSON.stringify(before)} → ${JSON.stringify(after)}`]];
}

/** The kinds of change from `before` to `after`, sorted, each once. */
export function nbChanges(before: NbDump, after: NbDump): string[] {
  return [...nbChangeExamples(before, after).keys()].sort();
}

/** Each kind of change with one example of it (for a test's diagnostics). */
export function nbChangeExamples(before: NbDump, after: NbDump): Map<string, string> {
  const changes = new Map<string, string>();
  for (const [table, rowsAfter] of after) {
    const rowsBefore = before.get(table) ?? new Map<string, Row>();
    const ignored = new Set(['_uuid', ...(WRITTEN_BY_OVN[table] ?? [])]);
    for (const [uuid, row] of rowsAfter) {
      const old = rowsBefore.get(uuid);
      if (!old) {
        changes.set(`${table} +row`, JSON.stringify(row));
        continue;
      }
      for (const column of Object.keys(row).filter((c) => !ignored.has(c)))
        for (const [change, example] of columnChanges(table, column, old[column], row[column]))
          if (!KEYS_WRITTEN_BY_OVN.has(change)) changes.set(change, example);
    }
    for (const [uuid, row] of rowsBefore) if (!rowsAfter.has(uuid)) changes.set(`${table} -row`, JSON.stringify(row));
  }
  return changes;
}
