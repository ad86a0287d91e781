/**
 * Getting a new `controller_ip_port_list` from the rendered files to what runs: first the Octavia
 * services are signalled to re-read their config (octavia-reload.ts), then every amphora gets
 * `amphora configure` (amphora-configure.ts). Level-triggered: the state remembers the list each
 * step last delivered, so a step that failed (a stale pidfile, Octavia away) stays pending and is
 * tried again on the next pass, and a pass with nothing new does nothing.
 *
 * The order matters: Octavia's worker renders the amphora agent config from its own options, so
 * amphorae are configured only once the reload went through, and after `settleMs`: the signal
 * reaches the main process at once, but its workers re-read their config a moment later.
 */
import {
  pushAmphoraConfig,
  type AmphoraPushOptions,
  type AmphoraPushReport,
  type OctaviaClient,
} from './amphora-configure.js';
import { reloadOctavia, type ReloadOutcome, type ReloadTarget } from './octavia-reload.js';

/** The controller list each step last delivered (kept between runs). */
export interface PropagationState {
  readonly reloaded?: readonly string[];
  readonly configured?: readonly string[];
}

export interface PropagationTargets {
  readonly reload: readonly ReloadTarget[];
  /** Octavia's API; absent: amphorae are not configured. */
  readonly octavia?: OctaviaClient;
  /** Wait between a reload and the amphora push. Default 2 s. */
  readonly settleMs?: number;
  readonly amphoraPush?: AmphoraPushOptions;
}

export interface PropagationReport {
  readonly state: PropagationState;
  /** Empty when no reload was due. */
  readonly reloads: readonly ReloadOutcome[];
  /** Absent when no push was due (or it waits for a reload that failed). */
  readonly amphorae?: AmphoraPushReport;
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((entry, i) => entry === b[i]);
}

export async function propagateControllerList(
  list: readonly string[],
  previous: PropagationState,
  targets: PropagationTargets,
): Promise<PropagationReport> {
  let state: PropagationState = previous;
  let reloads: ReloadOutcome[] = [];
  if (targets.reload.length > 0 && !sameList(state.reloaded, list)) {
    reloads = await Promise.all(targets.reload.map((target) => reloadOctavia(target)));
    if (reloads.every((r) => r.ok)) state = { ...state, reloaded: [...list] };
  }
  const reloadDone = targets.reload.length === 0 || sameList(state.reloaded, list);
  if (targets.octavia === undefined || !reloadDone || sameList(state.configured, list)) return { state, reloads };
  if (reloads.length > 0) await new Promise((resolve) => setTimeout(resolve, targets.settleMs ?? 2000));
  const amphorae = await pushAmphoraConfig(targets.octavia, targets.amphoraPush);
  if (amphorae.error === undefined && amphorae.failed.length === 0) state = { ...state, configured: [...list] };
  return { state, reloads, amphorae };
}
