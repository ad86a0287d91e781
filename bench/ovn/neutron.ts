/**
 * The real Neutron + ML2/OVN, where its anchor runs (../shared/anchors/neutron-zed): the same port
 * churn (NB transactions per API write, ops/s) on a network and /24 subnet of its own, deleted at
 * the end. The anchor has no chassis running ports, so the plugged-port figures do not apply.
 * start.sh is idempotent; the anchor is never stopped or wiped (other people use it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLogged } from '../api/api-bench.js';
import { anchorDir, anchorRunnable } from '../api/neutron-target.js';
import { deferUndo } from '../api/teardown.js';
import { measureChurn, type ChurnPhase } from './churn.js';
import { NeutronApi } from './neutron-api.js';

const ANCHOR_NB_FILE = '/tmp/anchor-zed/ovn/ovnnb_db.db';
const DEFAULT_URL = 'http://127.0.0.1:9797';

export interface NeutronResult {
  /** Why it did not run, if it did not. */
  skipped?: string;
  failure?: string;
  url?: string;
  phases: ChurnPhase[];
}

/** Deletes what the bench made on the anchor: its ports, then the subnet and network. */
async function removeNetwork(api: NeutronApi, networkId: string): Promise<void> {
  for (const id of await api.listPortIds(networkId)) {
    await api.delete('ports', id).catch(() => undefined);
  }
  await api.delete('networks', networkId);
}

export async function measureNeutron(
  repoRoot: string,
  logsDir: string,
  ports: number,
  skip: boolean,
): Promise<NeutronResult> {
  if (skip) return { skipped: '--skip-neutron', phases: [] };
  const anchor = anchorRunnable(repoRoot);
  if (!anchor.runnable) return { skipped: anchor.reason, phases: [] };
  const startLog = join(logsDir, 'neutron-start.txt');
  const started = await runLogged('bash', [join(anchorDir(repoRoot), 'start.sh')], startLog, false);
  if (started !== 0) return { failure: `anchor start.sh failed (exit ${started}), see ${startLog}`, phases: [] };
  if (!existsSync(ANCHOR_NB_FILE)) return { skipped: `the anchor's NB file ${ANCHOR_NB_FILE} is missing`, phases: [] };
  const url = /http:\/\/127\.0\.0\.1:\d+/.exec(readFileSync(startLog, 'utf8'))?.[0] ?? DEFAULT_URL;
  const api = new NeutronApi(url);
  let networkId: string | undefined;
  const undo = deferUndo(async () => {
    if (networkId) await removeNetwork(api, networkId);
  });
  let result: NeutronResult;
  try {
    await api.raiseQuotas();
    networkId = await api.createNetwork(`octonet-bench-ovn-${process.pid}`);
    await api.createSubnet(networkId, '10.251.0.0/24');
    result = { url, phases: await measureChurn({ api, networkId, ports, nbFile: ANCHOR_NB_FILE }) };
  } catch (error) {
    result = { url, failure: (error as Error).message, phases: [] };
  }
  try {
    await undo();
  } catch (error) {
    const note = `could not delete network ${networkId} from the anchor: ${(error as Error).message}`;
    result.failure = result.failure ? `${result.failure}; ${note}` : note;
  }
  api.close();
  return result;
}
