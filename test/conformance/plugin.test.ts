/**
 * Debian's neutron-tempest-plugin (2.0.0, Zed), its `neutron_tempest_plugin.api` tests, against
 * octonet on SQLite behind a real Keystone, with a real OVN central and the reference's gateway
 * chassis (so agents, router gateway ports and their scheduling are OVN's, not stand-ins). tempest
 * is told the extensions both octonet and the reference Neutron Zed offer (plugin-extensions.txt);
 * every record must end as plugin-expected.txt says, which justifies each one that does not pass.
 *
 * The whole selection (703 tests) takes far longer than CI's budget on a 2-core machine, so CI runs
 * CI_MODULES (275 tests), the modules that exercise the resources octonet serves most; the reference
 * Zed has results for every one of them (results-neutron-zed-plugin.txt, produced on a private Zed
 * stack by plugin-zed-private.sh). `scripts/conformance --plugin` runs all of it and compares test
 * by test. Measured: the CI selection took 738 s of tempest (245 pass, 6 fail, 24 skip) with the
 * machine's load average at 15-25 (8 agents on 2 cores); 1,425 s at ~30 before. test_qos and
 * test_qos_negative (130 tests: 74 s of tempest at a load of ~8, 478 s at ~20) stay outside CI for
 * that budget and because the reference has no Zed result for their rule classes yet; they pass
 * on octonet (114 pass, 16 skip) but for the records plugin-expected.txt lists.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { useKeystone } from '../fixtures/keystone.js';
import { useOvnCentral } from '../fixtures/ovn-central.js';
import {
  addReferenceChassis,
  prepareTempest,
  REFERENCE_NETWORK_CONFIG,
  REFERENCE_POLICY_FILE,
  runTempest,
} from '../fixtures/tempest.js';
import { differencesFrom, readAliases, readExpected } from './expected.js';

const EXPECTED_FILE = fileURLToPath(new URL('./plugin-expected.txt', import.meta.url));
const EXTENSIONS_FILE = fileURLToPath(new URL('./plugin-extensions.txt', import.meta.url));

/** The modules of `neutron_tempest_plugin.api` CI runs (the rest: `scripts/conformance --plugin`). */
const CI_MODULES = [
  'test_networks',
  'test_networks_negative',
  'test_ports',
  'test_ports_negative',
  'test_subnets',
  'test_security_groups',
  'test_security_groups_negative',
  'test_routers',
  'test_floating_ips',
  'test_extensions',
  'test_revisions',
  'test_timestamp',
  'admin.test_tag',
  'admin.test_quotas',
  'admin.test_quotas_negative',
  'admin.test_shared_network_extension',
  'admin.test_external_network_extension',
  'admin.test_agent_management',
];
const CI_REGEX = `^neutron_tempest_plugin\\.api\\.(${CI_MODULES.join('|').replace(/\./g, '\\.')})\\.`;

describe('neutron_tempest_plugin.api against octonet with Keystone and OVN', () => {
  const keystone = useKeystone();
  const ovn = useOvnCentral();
  before(() => addReferenceChassis(ovn));
  const api = useApi('sqlite', {
    config: () => ({
      ...keystone.octonetConfig(),
      network: REFERENCE_NETWORK_CONFIG,
      ovn: { nb_connection: ovn.nb, sb_connection: ovn.sb },
      policy_file: REFERENCE_POLICY_FILE,
    }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'octonet-tempest-plugin-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every test ends as plugin-expected.txt says', async () => {
    const ws = await prepareTempest({
      keystone,
      networkUrl: api.url,
      dir,
      onlyExtensions: readAliases(EXTENSIONS_FILE),
    });
    assert.ok(ws.extensions.includes('standard-attr-tag'), ws.extensions.join());
    const run = await runTempest(ws, { regex: CI_REGEX });
    const differences = differencesFrom(readExpected(EXPECTED_FILE), run, new RegExp(CI_REGEX));
    assert.ok(run.results.size > 100, `tempest ran only ${run.results.size} tests:\n${run.output.slice(-3000)}`);
    assert.deepEqual(differences, []);
  });
});
