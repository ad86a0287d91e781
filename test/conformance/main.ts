/**
 * `scripts/conformance`: the whole tempest network API suite (or a regex of it) against octonet on
 * SQLite behind a real Keystone, both started here in temporary directories, then the comparison
 * with the real Neutron Zed's per-test results (results-neutron-zed-tempest.txt, from
 * ../shared/conformance): counts per module side by side and every test whose status differs.
 *
 * Writes to --out (default .state/conformance/<time>/): tempest.txt (`<test id> pass|fail|skip`,
 * the same format as the reference), records.txt (one line per subunit record, the format of
 * tempest-expected.txt), tempest.log (tempest's console output with tracebacks), compare.md (the
 * tables). Exits 0 whatever tempest found: the tables are the result.
 *
 * `--plugin` runs neutron-tempest-plugin's `neutron_tempest_plugin.api` instead, on octonet with a
 * real OVN central and the reference's gateway chassis, tempest told only the extensions both sides
 * offer (plugin-extensions.txt), compared with results-neutron-zed-plugin.txt (plugin-zed-run.sh).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startApi } from '../fixtures/api.js';
import { startKeystone } from '../fixtures/keystone.js';
import { startOvnCentral } from '../fixtures/ovn-central.js';
import {
  addReferenceChassis,
  listTempest,
  perTest,
  prepareTempest,
  REFERENCE_NETWORK_CONFIG,
  REFERENCE_POLICY_FILE,
  runTempest,
} from '../fixtures/tempest.js';
import { readAliases } from './expected.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = resolve(here, '..', '..');

const HELP = `usage: scripts/conformance [--plugin] [--regex R] [--exclude-regex R] [--concurrency N] [--out DIR] [--reference FILE]
  --plugin         neutron-tempest-plugin's API tests instead (regex ^neutron_tempest_plugin\\.api\\.), on octonet
                   with a real OVN central and gateway chassis, tempest told only the extensions of
                   plugin-extensions.txt, compared with results-neutron-zed-plugin.txt
  --regex          tests to run (default ^tempest\\.api\\.network\\.)
  --exclude-regex  tests to leave out
  --concurrency    tempest workers (default 2)
  --out            results directory (default .state/conformance/<time>)
  --reference      per-test results to compare with (default test/conformance/results-neutron-zed-tempest.txt)`;

type Status = string;

function readResults(file: string): Map<string, Status> {
  const out = new Map<string, Status>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [id, status] = line.split('#')[0]!.trim().split(/\s+/);
    if (id && status) out.set(id, status);
  }
  return out;
}

/** `tempest.api.network.admin.test_quotas.QuotasTest.test_x` → `admin.test_quotas` (and the plugin's `neutron_tempest_plugin.api.`). */
function moduleOf(id: string): string {
  const parts = id.replace(/^(tempest\.api\.network|neutron_tempest_plugin\.api)\./, '').split('.');
  return parts
    .slice(
      0,
      parts.findIndex((p) => /^[A-Z]/.test(p)),
    )
    .join('.');
}

function count(statuses: Iterable<Status>): Record<string, number> {
  const out: Record<string, number> = { pass: 0, fail: 0, skip: 0 };
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

export function compareTables(reference: Map<string, Status>, candidate: Map<string, Status>): string {
  const modules = [...new Set([...reference.keys(), ...candidate.keys()].map(moduleOf))].sort();
  const lines = [
    '| module | Neutron pass | fail | skip | octonet pass | fail | skip |',
    '| :-- | --: | --: | --: | --: | --: | --: |',
  ];
  const row = (name: string, ids: (id: string) => boolean) => {
    const r = count([...reference].filter(([id]) => ids(id)).map(([, s]) => s));
    const c = count([...candidate].filter(([id]) => ids(id)).map(([, s]) => s));
    lines.push(`| ${name} | ${r.pass} | ${r.fail} | ${r.skip} | ${c.pass} | ${c.fail} | ${c.skip} |`);
  };
  for (const m of modules) row(m, (id) => moduleOf(id) === m);
  row('**total**', () => true);
  const transitions = new Map<string, string[]>();
  for (const id of [...new Set([...reference.keys(), ...candidate.keys()])].sort()) {
    const from = reference.get(id) ?? 'absent';
    const to = candidate.get(id) ?? 'absent';
    if (from === to) continue;
    const key = `${from} → ${to}`;
    transitions.set(key, [...(transitions.get(key) ?? []), id]);
  }
  lines.push('', 'Tests whose status differs (Neutron → octonet):', '');
  for (const [key, ids] of [...transitions].sort()) {
    lines.push(`- ${key} (${ids.length})`, ...ids.map((id) => `  - ${id}`));
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      plugin: { type: 'boolean', default: false },
      regex: { type: 'string' },
      'exclude-regex': { type: 'string' },
      concurrency: { type: 'string', default: '2' },
      out: { type: 'string' },
      reference: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = resolve(values.out ?? join(repoRoot, '.state', 'conformance', stamp));
  mkdirSync(out, { recursive: true });
  const log = (msg: string) => process.stderr.write(`conformance: ${msg}\n`);
  const plugin = values.plugin;
  const regex = values.regex ?? (plugin ? '^neutron_tempest_plugin\\.api\\.' : '^tempest\\.api\\.network\\.');
  const referenceFile =
    values.reference ?? join(here, plugin ? 'results-neutron-zed-plugin.txt' : 'results-neutron-zed-tempest.txt');

  log('starting Keystone');
  const keystone = await startKeystone();
  const ovn = plugin ? startOvnCentral() : undefined;
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  try {
    if (ovn) addReferenceChassis(ovn);
    api = await startApi('sqlite', {
      config: {
        ...keystone.octonetConfig(),
        network: REFERENCE_NETWORK_CONFIG,
        ...(ovn ? { ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb } } : {}),
        ...(plugin ? { policy_file: REFERENCE_POLICY_FILE } : {}),
      },
    });
    log(`octonet at ${api.url}, Keystone at ${keystone.url}`);
    const ws = await prepareTempest({
      keystone,
      networkUrl: api.url,
      dir: join(out, 'workspace'),
      onlyExtensions: plugin ? readAliases(join(here, 'plugin-extensions.txt')) : undefined,
    });
    log(`tempest.conf: ${ws.extensions.length} extensions; listing tests`);
    const listed = await listTempest(ws, regex);
    log(`${listed.length} tests listed; running them (concurrency ${values.concurrency})`);
    const started = Date.now();
    const run = await runTempest(ws, {
      regex,
      excludeRegex: values['exclude-regex'],
      concurrency: Number(values.concurrency),
    });
    const seconds = Math.round((Date.now() - started) / 1000);
    const results = perTest(listed, run);
    writeFileSync(join(out, 'tempest.txt'), [...results].map(([id, s]) => `${id} ${s}\n`).join(''));
    writeFileSync(join(out, 'tempest.log'), run.output);
    // One line per subunit record (a class skipped as a whole is one line): tempest-expected.txt's format.
    writeFileSync(
      join(out, 'records.txt'),
      [...run.results]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([id, r]) => `${id} ${r.status}${r.reason ? `  # ${r.reason.split('\n')[0]}` : ''}\n`)
        .join(''),
    );
    const counts = count(results.values());
    // No reference yet (a first run producing it): the tables show octonet's side only.
    const reference = existsSync(referenceFile) ? readResults(resolve(referenceFile)) : new Map<string, Status>();
    const selected = new Map([...reference].filter(([id]) => results.has(id)));
    const tables = compareTables(selected, new Map([...results].map(([id, s]) => [id, s as string])));
    const summary = `octonet: passed=${counts.pass} failed=${counts.fail} skipped=${counts.skip} missing=${counts.missing ?? 0} of ${listed.length} listed, ${seconds} s`;
    writeFileSync(join(out, 'compare.md'), `${summary}\n\n${tables}`);
    process.stdout.write(`${summary}\n\n${tables}\nresults in ${out}\n`);
    return 0;
  } finally {
    await api?.close();
    ovn?.stop();
    await keystone.stop();
  }
}

process.exitCode = await main();
