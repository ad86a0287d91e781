/**
 * Where the client's Keystone settings come from: `OS_*` variables over `clouds.yaml` (`OS_CLOUD`),
 * the `/v3` suffix, and an error naming what is missing that never contains the password.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { KeystoneAuthError, keystoneSettingsFromEnvironment } from './keystone-auth.js';

describe('mgmt-net Keystone settings', () => {
  it('reads OS_* variables', () => {
    const s = keystoneSettingsFromEnvironment({
      OS_AUTH_URL: 'http://ks:5000',
      OS_USERNAME: 'octavia',
      OS_PASSWORD: 'pw',
      OS_PROJECT_NAME: 'service',
      OS_PROJECT_DOMAIN_NAME: 'Default',
      OS_INTERFACE: 'internalURL',
      OS_REGION_NAME: 'RegionTwo',
    });
    assert.deepEqual(
      [s.authUrl, s.username, s.project.name, s.project.domainName, s.userDomain.name, s.interface, s.regionName],
      ['http://ks:5000/v3', 'octavia', 'service', 'Default', 'Default', 'internal', 'RegionTwo'],
    );
  });

  it('reads clouds.yaml for OS_CLOUD, with OS_* variables winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'octonet-clouds-'));
    try {
      const file = join(dir, 'clouds.yaml');
      writeFileSync(
        file,
        'clouds:\n  prod:\n    auth: {auth_url: "http://ks:5000/v3", username: u, password: secret, project_id: p1, user_domain_id: default}\n    region_name: R1\n',
      );
      const s = keystoneSettingsFromEnvironment({
        OS_CLOUD: 'prod',
        OS_CLIENT_CONFIG_FILE: file,
        OS_REGION_NAME: 'R2',
      });
      assert.deepEqual(
        [s.authUrl, s.username, s.project.id, s.userDomain.id, s.regionName],
        ['http://ks:5000/v3', 'u', 'p1', 'default', 'R2'],
      );
      assert.throws(
        () => keystoneSettingsFromEnvironment({ OS_CLOUD: 'dev', OS_CLIENT_CONFIG_FILE: file }),
        /cloud "dev" is not in/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names what is missing, and not the password', () => {
    assert.throws(
      () => keystoneSettingsFromEnvironment({ OS_AUTH_URL: 'http://ks:5000/v3', OS_PASSWORD: 'hunter2' }),
      (error: unknown) => {
        assert.ok(error instanceof KeystoneAuthError);
        assert.match(error.message, /give --os-url URL \(noauth\), or Keystone credentials \(missing OS_USERNAME/);
        assert.ok(!error.message.includes('hunter2'));
        return true;
      },
    );
  });
});
