/**
 * Getting a new `controller_ip_port_list` from the rendered files to what runs: first the Octavia
 * services are signalled to re-read their config (octavia-reload.ts), then every amphora gets
 * `amphora configure` (amphora-configure.ts). Level-triggered: the state remembers the list each
 * step last delivered, so a step that failed (a stale pidfile, Octavia away) stays pending and is
 * tried again on the next pass, and a pass with nothing new does nothing.
 *
 * The order matters: Octavia's worker renders the amphora agent config from its own options, so
 * amphorae are configured only once the worker is known to have the list, and the list is recorded
 * as delivered to them only then. Known means: a reload of ours went through (then after
 * `settleMs`), or `workerCheck` says so (on Kubernetes: the worker's rollout with this list is
 * complete, kube/rollout.ts). With neither, the push still runs (it cannot hurt) but is not
 * recorded, so every pass pushes again.
 *
 * `settleMs` is a grace period, not a check: the signal reaches the main process at once, but it
 * re-reads its config and restarts its workers a moment later, and Octavia offers no way to ask a
 * running worker which list it holds (no API or status shows it; only its log line `Option
 * health_manager.controller_ip_port_list changed` does, in a file we may not be able to read).
 * A push that came too early is not repeated; an `amphora configure` or the next list change is.
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
  /** With no reload targets: whether the worker runs with `list` (kube/rollout.ts workloadsRolledOut). */
  readonly workerCheck?: (list: readonly string[]) => Promise<{ ready: boolean; detail: string }>;
}

export interface PropagationReport {
  readonly state: PropagationState;
  /** Empty when no reload was due. */
  readonly reloads: readonly ReloadOutcome[];
  /** Absent when no push was due (or it waits for a reload that failed). */
  readonly amphorae?: AmphoraPushReport;
  /** Why the push waits (the worker check said not yet); it is tried again on the next pass. */
  readonly waiting?: string;
  /** The push ran but nothing tells that the worker had the list: not recorded, pushed again next pass. */
  readonly unconfirmed?: boolean;
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
  if (targets.octavia === undefined || sameList(state.configured, list)) return { state, reloads };
  let known = false;
  if (targets.reload.length > 0) {
    if (!sameList(state.reloaded, list)) return { state, reloads };
    if (reloads.length > 0) await new Promise((resolve) => setTimeout(resolve, targets.settleMs ?? 2000));
    known = true;
  } else if (targets.workerCheck !== undefined) {
    const check = await targets.workerCheck(list);
    if (!check.ready) return { state, reloads, waiting: check.detail };
    known = true;
  }
  const amphorae = await pushAmphoraConfig(targets.octavia, targets.amphoraPush);
  const pushed = amphorae.error === undefined && amphorae.failed.length === 0;
  if (known && pushed) state = { ...state, configured: [...list] };
  return { state, reloads, amphorae, ...(known ? {} : { unconfirmed: true }) };
}
