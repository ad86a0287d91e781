/**
 * Two VMs on two nodes on one logical switch, over Geneve on the userspace datapath: DHCP from
 * OVN's native server, ping, TCP and UDP both ways, a 1 MiB transfer at the tenant MTU (1442),
 * port status following plug and unplug, and the MAC read from the NB when not given.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import {
  assertPing,
  assertTcpTransfer,
  assertUdpDatagram,
  check,
  createSwitch,
  notRoot,
  pollUntil,
  portUp,
  useLab,
} from './lab-fixture.js';

const TENANT_MTU = 1442;
const A = { name: 'port-a', mac: 'fa:16:3e:00:00:0a', ip: '10.0.0.11' };
const B = { name: 'port-b', mac: 'fa:16:3e:00:00:0b', ip: '10.0.0.12' };

describe('lab: two nodes, one logical switch', { skip: notRoot }, () => {
  const { lab, scratch } = useLab({ name: 'test-tunnel', nodes: 2 });
  const resolvConfBefore = readFileSync('/etc/resolv.conf', 'utf8');

  before(async () => {
    const dhcp = await lab().nbctl(
      'create',
      'DHCP_Options',
      'cidr=10.0.0.0/24',
      `options={lease_time="3600", router="10.0.0.1", server_id="10.0.0.1", server_mac="fa:16:3e:ff:ff:01", ` +
        `mtu="${TENANT_MTU}", classless_static_route="{10.9.0.0/16,10.0.0.254}", ` +
        `dns_server="{192.0.2.53}"}`,
    );
    await createSwitch(lab(), 'net1', [A, B], dhcp);
    await lab().createVm({ node: 'node1', port: A.name, name: 'a' });
    await lab().createVm({ node: 'node2', port: B.name, name: 'b' });
  });

  const vm = (name: string) => lab().vmCommand(name, []);

  it('registers each node as a chassis named and hosted node<K>, with tunnel neighbours seeded', async () => {
    const chassis = await lab().sbctl('--bare', '--columns=name,hostname', 'list', 'Chassis');
    const pairs = chassis.split('\n\n').map((row) => row.split('\n').join('/'));
    assert.deepEqual(pairs.sort(), ['node1/node1', 'node2/node2']);
    const neighbours = await check(lab(), lab().nodeCommand('node1', ['ovs-appctl', 'tnl/neigh/show']));
    assert.match(neighbours, /192\.0\.2\.12\s+02:00:c0:00:02:0c\s+br-phy/);
  });

  it('DHCP gives the VM its address, default gateway, MTU and classless static route', async () => {
    const link = JSON.parse(await check(lab(), [...vm('a'), 'ip', '-j', 'addr', 'show', 'dev', 'eth0']))[0];
    assert.equal(link.address, A.mac);
    assert.equal(link.mtu, TENANT_MTU);
    const inet = link.addr_info.filter((a: { family: string }) => a.family === 'inet');
    assert.deepEqual(
      inet.map((a: { local: string; prefixlen: number }) => `${a.local}/${a.prefixlen}`),
      [`${A.ip}/24`],
    );
    const routes = await check(lab(), [...vm('a'), 'ip', '-4', 'route', 'show']);
    assert.match(routes, /^default via 10\.0\.0\.1 dev eth0/m);
    assert.match(routes, /^10\.9\.0\.0\/16 via 10\.0\.0\.254 dev eth0/m);
    assert.equal(readFileSync('/etc/resolv.conf', 'utf8'), resolvConfBefore, "the host's resolver is untouched");
    const status = await lab().status();
    assert.deepEqual(
      status.vms.map((v) => [v.name, v.node, v.port, v.mac, v.addresses.join()]),
      [
        ['a', 'node1', A.name, A.mac, `${A.ip}/24`],
        ['b', 'node2', B.name, B.mac, `${B.ip}/24`],
      ],
    );
  });

  it('plugging binds the port: Logical_Switch_Port.up is true', async () => {
    await pollUntil(async () => (await portUp(lab(), A.name)) === 'true', 'port-a up'); // throws when it never is
    assert.equal(await portUp(lab(), A.name), 'true');
    assert.equal(await portUp(lab(), B.name), 'true');
  });

  it('ping works both ways across the tunnel', async () => {
    await assertPing(lab(), vm('a'), B.ip);
    await assertPing(lab(), vm('b'), A.ip);
  });

  it('TCP and UDP work both ways (checksum offload is off on every veth)', async () => {
    await assertTcpTransfer(lab(), scratch(), vm('a'), vm('b'), B.ip, 1000, 9001);
    await assertTcpTransfer(lab(), scratch(), vm('b'), vm('a'), A.ip, 1000, 9002);
    await assertUdpDatagram(lab(), scratch(), vm('a'), vm('b'), B.ip, 5001);
    await assertUdpDatagram(lab(), scratch(), vm('b'), vm('a'), A.ip, 5002);
  });

  it('carries full-size packets at the DHCP-given MTU: a 1 MiB TCP transfer arrives intact', async () => {
    // 1442 − 28 bytes of IP and ICMP header, with don't-fragment: the largest packet the VM sends.
    const big = await check(lab(), [...vm('a'), 'ping', '-c', '2', '-M', 'do', '-s', String(TENANT_MTU - 28), B.ip]);
    assert.match(big, /2 packets transmitted, 2 received/);
    await assertTcpTransfer(lab(), scratch(), vm('a'), vm('b'), B.ip, 1 << 20, 9003);
  });

  it('reads the MAC from the NB when none is given, waiting for the port to appear', async () => {
    const late = { name: 'port-late', mac: 'fa:16:3e:00:00:1a', ip: '10.0.0.13' };
    const creating = lab().createVm({ node: 'node2', port: late.name, name: 'late', dhcp: false });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the control plane writes it later
    await createSwitch(lab(), 'net1', [late]);
    const created = await creating;
    assert.equal(created.mac, late.mac);
    const link = JSON.parse(await check(lab(), [...vm('late'), 'ip', '-j', 'link', 'show', 'dev', 'eth0']))[0];
    assert.equal(link.address, late.mac);
  });

  it('vm delete unplugs: the port goes down, the OVS port and the namespace are gone', async () => {
    const namespace = lab().layout.vmNamespace('b');
    await lab().deleteVm('b');
    await pollUntil(async () => (await portUp(lab(), B.name)) === 'false', 'port-b down');
    const ports = await check(lab(), lab().nodeCommand('node2', ['ovs-vsctl', 'list-ports', 'br-int']));
    assert.doesNotMatch(ports, /tapport-b/);
    const namespaces = await check(lab(), ['ip', 'netns', 'list']);
    assert.doesNotMatch(namespaces, new RegExp(`^${namespace}( |$)`, 'm'));
    assert.deepEqual(
      (await lab().status()).vms.map((v) => v.name),
      ['a', 'late'],
    );
  });
});
