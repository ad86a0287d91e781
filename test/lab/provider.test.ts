/**
 * Provider networks on physnet1: a VM behind a VLAN localnet port reaches the outside namespace
 * over VLAN 100 (on its eth0.100), and one behind a flat localnet port reaches it untagged; ping
 * and TCP both ways. Also the gateway flag and bridge mappings the nodes report.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  addLocalnetPort,
  assertPing,
  assertTcpTransfer,
  captureWhile,
  check,
  createSwitch,
  notRoot,
  pollUntil,
  portUp,
  useLab,
} from './lab-fixture.js';

const ON_VLAN = { name: 'port-vlan', mac: 'fa:16:3e:00:01:0a', ip: '10.100.0.11' };
const ON_FLAT = { name: 'port-flat', mac: 'fa:16:3e:00:02:0a', ip: '198.51.100.11' };

describe('lab: provider networks on physnet1', { skip: notRoot }, () => {
  const { lab, scratch } = useLab({ name: 'test-provider', nodes: 2, gateways: ['node1'] });
  const vm = (name: string) => lab().vmCommand(name, []);
  const outside = () => lab().outsideCommand([]);

  before(async () => {
    await createSwitch(lab(), 'provider-vlan100', [ON_VLAN]);
    await addLocalnetPort(lab(), 'provider-vlan100', 'provider-vlan100-localnet', 100);
    await createSwitch(lab(), 'provider-flat', [ON_FLAT]);
    await addLocalnetPort(lab(), 'provider-flat', 'provider-flat-localnet');
    // Provider networks have the physical MTU; addresses are static here (no DHCP_Options).
    await lab().createVm({ node: 'node2', port: ON_VLAN.name, name: 'on-vlan', dhcp: false });
    await lab().createVm({ node: 'node1', port: ON_FLAT.name, name: 'on-flat', dhcp: false });
    await check(lab(), [...vm('on-vlan'), 'ip', 'addr', 'add', `${ON_VLAN.ip}/24`, 'dev', 'eth0']);
    await check(lab(), [...vm('on-flat'), 'ip', 'addr', 'add', `${ON_FLAT.ip}/24`, 'dev', 'eth0']);
    for (const port of [ON_VLAN.name, ON_FLAT.name]) {
      await pollUntil(async () => (await portUp(lab(), port)) === 'true', `${port} up`);
    }
  });

  it('reports the gateway flag and the bridge mappings of each node', async () => {
    const status = await lab().status();
    assert.deepEqual(
      status.nodes.map((n) => [n.name, n.chassis, n.hostname, n.gateway, n.bridgeMappings, n.running]),
      [
        ['node1', 'node1', 'node1', true, 'physnet1:br-ex', true],
        ['node2', 'node2', 'node2', false, 'physnet1:br-ex', true],
      ],
    );
    const cms = await lab().sbctl('--bare', '--columns=other_config', 'find', 'Chassis', 'name=node1');
    assert.match(cms, /ovn-cms-options=enable-chassis-as-gw/);
    const other = await lab().sbctl('--bare', '--columns=other_config', 'find', 'Chassis', 'name=node2');
    assert.doesNotMatch(other, /enable-chassis-as-gw/);
    assert.deepEqual(status.outside, {
      namespace: 'test-provider-outside',
      interface: 'eth0',
      address: '198.51.100.100',
      cidr: '198.51.100.0/24',
      mac: '02:00:c6:33:64:64',
      physnet: 'physnet1',
      vlans: [],
    });
  });

  it('a VM on a VLAN 100 localnet network reaches the outside on its VLAN 100 subinterface', async () => {
    const name = await lab().addOutsideVlan(100, '10.100.0.100/24');
    assert.equal(name, 'eth0.100');
    await assertPing(lab(), vm('on-vlan'), '10.100.0.100');
    await assertPing(lab(), outside(), ON_VLAN.ip);
    await assertTcpTransfer(lab(), scratch(), vm('on-vlan'), outside(), '10.100.0.100', 100_000, 9101);
    await assertTcpTransfer(lab(), scratch(), outside(), vm('on-vlan'), ON_VLAN.ip, 100_000, 9102);
    const vlans = (await lab().status()).outside.vlans;
    assert.deepEqual(
      vlans.map((v) => [v.vlan, v.interface, v.addresses]),
      [[100, 'eth0.100', ['10.100.0.100/24']]],
    );
  });

  it('the frames cross the physical network tagged with VLAN 100', async () => {
    await lab().addOutsideVlan(100, '10.100.0.100/24'); // idempotent: this test may run alone
    const seen = await captureWhile(outside(), 'eth0', 'vlan 100 and icmp', () =>
      assertPing(lab(), vm('on-vlan'), '10.100.0.100'),
    );
    assert.match(seen, /fa:16:3e:00:01:0a > 02:00:c6:33:64:64/);
    assert.match(seen, /vlan 100, p 0, ethertype IPv4/);
  });

  it('a VM on a flat localnet network reaches the outside untagged', async () => {
    await assertPing(lab(), vm('on-flat'), '198.51.100.100');
    await assertPing(lab(), outside(), ON_FLAT.ip);
    await assertTcpTransfer(lab(), scratch(), vm('on-flat'), outside(), '198.51.100.100', 100_000, 9103);
    await assertTcpTransfer(lab(), scratch(), outside(), vm('on-flat'), ON_FLAT.ip, 100_000, 9104);
  });
});
