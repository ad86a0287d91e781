/**
 * Octavia option rendering: a sorted, stable controller list (numeric order, IPv4 first, IPv6 in
 * brackets), the changed flag, the INI fragment and ConfigMap, and the heartbeat key file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  bindIp,
  controllerIpPortList,
  controllerListChanged,
  loadOrCreateHeartbeatKey,
  octaviaOptions,
  renderConfigMap,
  renderIni,
} from './octavia-config.js';

const controllers = [
  { node: 'a', addresses: ['172.24.0.100'] },
  { node: 'b', addresses: ['172.24.0.9'] },
  { node: 'c', addresses: ['fd00::5'] },
  { node: 'd', addresses: ['172.24.0.20', 'fd00::20'] },
];

describe('mgmt-net Octavia options', () => {
  it('sorts the controller list numerically, IPv4 first, IPv6 bracketed, whatever the input order', () => {
    const expected = ['172.24.0.9:5555', '172.24.0.20:5555', '172.24.0.100:5555', '[fd00::5]:5555'];
    assert.deepEqual(controllerIpPortList(controllers, 5555), expected);
    assert.deepEqual(controllerIpPortList([...controllers].reverse(), 5555), expected);
  });

  it('reports a changed list, including a reordering, and not an identical one', () => {
    assert.equal(controllerListChanged(undefined, ['1.1.1.1:5555']), true);
    assert.equal(controllerListChanged(undefined, []), false);
    assert.equal(controllerListChanged(['1.1.1.1:5555'], ['1.1.1.1:5555']), false);
    assert.equal(controllerListChanged(['1.1.1.1:5555', '1.1.1.2:5555'], ['1.1.1.2:5555', '1.1.1.1:5555']), true);
    assert.equal(controllerListChanged(['1.1.1.1:5555'], []), true);
  });

  it('renders the INI fragment of a node and the ConfigMap (no key in the ConfigMap)', () => {
    const options = octaviaOptions({
      controllers,
      bindPort: 5555,
      mgmtNetworkId: 'net-1',
      amphoraSecurityGroupId: 'sg-1',
    });
    const ini = renderIni(options, controllers[1]!, 'k'.repeat(64));
    assert.match(ini, /^\[health_manager\]$/m);
    assert.match(ini, /^bind_ip = 172\.24\.0\.9$/m);
    assert.match(
      ini,
      /^controller_ip_port_list = 172\.24\.0\.9:5555, 172\.24\.0\.20:5555, 172\.24\.0\.100:5555, \[fd00::5\]:5555$/m,
    );
    assert.match(ini, /^heartbeat_key = k{64}$/m);
    assert.match(ini, /^amp_boot_network_list = net-1$/m);
    assert.match(ini, /^amp_secgroup_list = sg-1$/m);
    // Octavia has no VIP deny-list; an unknown key would be ignored silently, so none is rendered
    assert.doesNotMatch(ini, /denylist|\[networking\]/);
    assert.equal(bindIp(['172.24.0.20', 'fd00::20']), '::');
    const map = renderConfigMap({ name: 'lb-mgmt', namespace: 'openstack', options, controllers });
    assert.deepEqual(Object.keys(map.data).sort(), ['a.conf', 'b.conf', 'c.conf', 'controller_ip_port_list', 'd.conf']);
    assert.equal(map.metadata.name, 'lb-mgmt-octavia-config');
    assert.ok(!JSON.stringify(map).includes('heartbeat_key'));
    assert.match(map.data['d.conf']!, /^bind_ip = ::$/m);
  });

  it('generates the heartbeat key once (0600), keeps it, and rotates it on request', () => {
    const dir = mkdtempSync(join(tmpdir(), 'octonet-hbkey-'));
    try {
      const path = join(dir, 'spec.yaml.heartbeat-key');
      const first = loadOrCreateHeartbeatKey(path);
      assert.equal(first.created, true);
      assert.match(first.key, /^[0-9a-f]{64}$/);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const second = loadOrCreateHeartbeatKey(path);
      assert.deepEqual([second.key, second.created, second.rotated], [first.key, false, false]);
      const rotated = loadOrCreateHeartbeatKey(path, true);
      assert.equal(rotated.rotated, true);
      assert.notEqual(rotated.key, first.key);
      assert.equal(readFileSync(path, 'utf8').trim(), rotated.key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
