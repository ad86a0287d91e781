/**
 * The real tempest network API suite (`tempest.api.network`, Debian's tempest 1:33) against octonet
 * on SQLite behind a real Keystone: every test must end as `tempest-expected.txt` says, which is
 * `pass` for all but the few listed there with their reasons (extensions octonet does not offer,
 * master behaviour this tempest predates).
 *
 * The whole suite takes about a minute here, so it runs whole rather than as a subset: a test that
 * starts passing is reported too, so that its line leaves the expectations. `scripts/conformance`
 * runs the same suite and compares it test by test with the real Neutron's results.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { useApi } from '../fixtures/api.js';
import { useKeystone } from '../fixtures/keystone.js';
import { prepareTempest, REFERENCE_NETWORK_CONFIG, runTempest } from '../fixtures/tempest.js';
import { differencesFrom, readExpected } from './expected.js';

const EXPECTED_FILE = fileURLToPath(new URL('./tempest-expected.txt', import.meta.url));

describe('tempest.api.network against octonet with Keystone', () => {
  const keystone = useKeystone();
  const api = useApi('sqlite', {
    config: () => ({ ...keystone.octonetConfig(), network: REFERENCE_NETWORK_CONFIG }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'octonet-tempest-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every test ends as tempest-expected.txt says', async () => {
    const ws = await prepareTempest({ keystone, networkUrl: api.url, dir });
    assert.ok(ws.extensions.includes('standard-attr-tag'), ws.extensions.join());
    const run = await runTempest(ws, { regex: '^tempest\\.api\\.network\\.' });
    const differences = differencesFrom(readExpected(EXPECTED_FILE), run);
    assert.ok(run.results.size > 150, `tempest ran only ${run.results.size} tests:\n${run.output.slice(-3000)}`);
    assert.deepEqual(differences, []);
  });
});
