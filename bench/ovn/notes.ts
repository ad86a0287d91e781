/**
 * The notes printed under the tables: what each figure includes and leaves out, so a reader does
 * not compare things that differ. Derived from the results; no figures are computed here.
 */
import type { OvnBenchResults } from './report.js';

export function figureNotes(r: OvnBenchResults): string[] {
  const notes: string[] = [];
  if (r.active?.samples.length) {
    const polls = r.active.samples.reduce((sum, s) => sum + s.polls, 0) / r.active.samples.length;
    notes.push(
      'ACTIVE: "plugged" (t0) is when the node\'s own OVS database reported the Interface with ' +
        "external_ids:iface-id = port id; claim and claim-done are ovn-controller's SB writes (Port_Binding " +
        "chassis, up), NB up is northd's; all are monitor timestamps taken in the bench process. The API " +
        `is polled every 1 ms from t0 (${polls.toFixed(0)} GETs per sample on average), so ACTIVE includes up to one poll round trip. ` +
        '"ACTIVE − claim-done" does not depend on t0.',
    );
    const late = r.active.samples.filter((s) => s.claimMs <= 0).length;
    if (late) {
      notes.push(
        `ACTIVE: in ${late} of ${r.active.samples.length} samples this process read the plug from the node's OVS ` +
          'database only after ovn-controller had claimed the port (claim − plugged ≤ 0): on 2 shared cores the bench ' +
          'is not always scheduled first. Those samples understate claim-done and overstate the ratio.',
      );
    }
  }
  if (r.repair?.samples.length) {
    notes.push(
      'repair: the LSP is removed from its switch by this process (an OVSDB mutate); "seen" times are when its NB ' +
        'monitor reported the change. On 2 shared cores it may read the delete only after octonet has already answered ' +
        'it, which shortens "delete seen → insert seen"; "delete sent → insert seen" is the upper bound the goal uses.',
    );
  }
  if (r.churn?.phases.length || r.neutron?.phases.length) {
    notes.push(
      'NB file txns: committed transactions in the NB database file over the phase (until it was quiet for 1 s): ' +
        "the target's own and northd's (NB_Global nb_cfg/sb_cfg/hv_cfg, Logical_Switch_Port.up). Client counter: " +
        "octonet_ovn_nb_transactions_total, octonet's own NB transactions only.",
    );
  }
  if (r.neutron?.phases.length) {
    notes.push(
      "Neutron: the anchor's NB file also counts its MaintenanceWorker's writes and those of anyone else using the " +
        `anchor at the time; no chassis runs its ports. URL ${r.neutron.url}.`,
    );
  } else if (r.neutron?.skipped) {
    notes.push(`Neutron not measured: ${r.neutron.skipped}`);
  }
  if (r.fullSync) {
    notes.push(
      'full pass: "pass" is the duration octonet measured (its summary log line and octonet_ovn_last_full_sync_seconds); ' +
        '"spawn → done" adds the launcher, Node start-up, the database and the OVSDB connections; "northd after" is how ' +
        "long ovn-nbctl --wait=sb sync took once the pass was over (northd digesting the ports, OVN's own work); " +
        '"passes that followed" are full passes octonet ran by itself afterwards, until no pass was logged for 3 s. ' +
        'CPU "pass" counts from the spawn to the summary line, "after" from there until quiet. ' +
        `The ${r.fullSync.portsInDatabase} ports were bulk-created in ` +
        `${r.fullSync.bulkCreateSeconds.toFixed(1)} s by a serve without OVN on the same SQLite file.`,
    );
    const passes = r.fullSync.passes.filter((p) => p.followUps.length);
    if (passes.length) {
      notes.push(
        'full pass: "gauge as read" is octonet_ovn_last_full_sync_seconds scraped right after the start-up summary line; ' +
          'when it differs from "pass (log)", a pass that followed had already finished (and overwritten it) before ' +
          '/metrics answered.',
      );
    }
    const batches = r.fullSync.bulkBatchSeconds;
    if (batches.length > 1) {
      notes.push(
        `bulk create (not a goal): ${batches.length} requests of up to 500 ports; the first took ` +
          `${batches[0]!.toFixed(2)} s, the last ${batches[batches.length - 1]!.toFixed(2)} s.`,
      );
    }
  }
  return notes;
}
