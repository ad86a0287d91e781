/**
 * The drift watch's sweep: changed rows → resource keys → in-sync checks in slices, the event loop
 * free between slices (after a full pass into an empty NB every row echoes back at once), a burst
 * judged as one whatever its slicing. The NB sync is a fake standing in for the real one's two
 * answers (in line or not; repair); the rows and the NB view are real.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { NbView } from '../nb-view.js';
import type { NbTables, RowChange } from '../ovsdb/index.js';
import { Replica } from '../ovsdb/replica.js';
import { NbWatch } from './nb-watch.js';
import { keyOf, type ResourceKey } from './resource-key.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A port's DHCP_Options row changed (the watch maps it to the port's key). */
function dhcpChange(portId: string): RowChange<NbTables> {
  return {
    table: 'DHCP_Options',
    uuid: `00000000-0000-4000-8000-${portId.padStart(12, '0')}`,
    kind: 'insert',
    row: { _uuid: portId, cidr: '10.0.0.0/24', options: {}, external_ids: { port_id: portId } },
  };
}

function setup(drifted: ReadonlySet<string>, sliceSize: number) {
  const checked: ResourceKey[] = [];
  const repaired: ResourceKey[] = [];
  const fullPasses: string[] = [];
  const sync = {
    nbView: new NbView(new Replica<NbTables>()),
    isInSync(key: ResourceKey) {
      checked.push(key);
      return !drifted.has(key);
    },
    checkDrift(key: ResourceKey) {
      repaired.push(key);
      return Promise.resolve(undefined);
    },
  };
  const watch = new NbWatch({
    sync,
    logger: pino({ level: 'silent' }),
    requestFullSync: (trigger) => fullPasses.push(trigger),
    sliceSize,
  });
  return { watch, checked, repaired, fullPasses };
}

/** Turns of the event loop until the sweep has checked `total` keys (and one more for its end). */
async function sweepDone(checked: readonly unknown[], total: number): Promise<number> {
  let turns = 0;
  while (checked.length < total) {
    await nextTurn();
    turns++;
  }
  await nextTurn();
  return turns;
}

const ports = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));

describe('NbWatch', () => {
  it('checks a large echo in slices, letting other callbacks run between them', async () => {
    const { watch, checked, repaired, fullPasses } = setup(new Set(), 10);
    watch.onChanges(ports(95).map(dhcpChange));
    // A callback queued now (as an API request's would be) runs after the first slice, not after all.
    let checkedWhenOtherRan = -1;
    setImmediate(() => (checkedWhenOtherRan = checked.length));
    const turns = await sweepDone(checked, 95);
    assert.equal(checkedWhenOtherRan, 10);
    assert.ok(turns >= 10, `${turns} turns of the event loop for 10 slices`);
    assert.equal(new Set(checked).size, 95);
    assert.deepEqual(repaired, []);
    assert.deepEqual(fullPasses, []);
  });

  it('repairs the keys found out of line one by one once the sweep is over, with keys that arrived during it', async () => {
    const drifted = new Set([keyOf('port', '3'), keyOf('port', '25'), keyOf('port', '107')]);
    const { watch, checked, repaired } = setup(drifted, 10);
    watch.onChanges(ports(30).map(dhcpChange));
    await nextTurn();
    // Arrives mid-sweep: joins it rather than starting a second one.
    watch.onChanges([dhcpChange('107')]);
    assert.deepEqual(repaired, [], 'nothing repaired before the sweep is over');
    await sweepDone(checked, 31);
    assert.deepEqual(new Set(repaired), drifted);
  });

  it('turns a burst of drift spread over many slices into one full pass', async () => {
    const all = ports(1000);
    const drifted = new Set(all.map((id) => keyOf('port', id)));
    const { watch, checked, repaired, fullPasses } = setup(drifted, 50);
    watch.onChanges(all.map(dhcpChange));
    while (fullPasses.length === 0) await nextTurn();
    await nextTurn();
    assert.deepEqual(fullPasses, ['drift']);
    assert.deepEqual(repaired, []);
    // The pass compares everything: the keys still pending were dropped, not checked.
    assert.ok(checked.length < all.length, `${checked.length} checked`);
  });

  it('holds a sweep while paused and finishes it on resume', async () => {
    const { watch, checked } = setup(new Set(), 10);
    watch.onChanges(ports(40).map(dhcpChange));
    await nextTurn();
    watch.pause();
    const before = checked.length;
    await nextTurn();
    await nextTurn();
    assert.equal(checked.length, before, 'no slice runs while paused');
    watch.resume();
    await sweepDone(checked, 40);
    assert.equal(new Set(checked).size, 40);
  });
});
