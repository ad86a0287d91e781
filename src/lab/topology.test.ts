import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LabUsageError,
  brPhyMac,
  checkLabName,
  defaultVmName,
  labLayout,
  normalizeMac,
  tapName,
  vtepIp,
} from './topology.js';

describe('lab topology', () => {
  it('derives namespaces and the run dir from the lab name', () => {
    const layout = labLayout('octonet', '/run/octonet-lab');
    assert.equal(layout.runDir, '/run/octonet-lab/octonet');
    assert.equal(layout.nbSocket, '/run/octonet-lab/octonet/central/ovnnb_db.sock');
    assert.equal(layout.nodeNamespace('node3'), 'octonet-node3');
    assert.equal(layout.vmNamespace('web'), 'octonet-vm-web');
    assert.deepEqual(layout.namespaces, {
      underlay: 'octonet-underlay',
      central: 'octonet-central',
      outside: 'octonet-outside',
      core: 'octonet-core',
    });
    assert.equal(layout.cloudgwNamespace('cloudgw1'), 'octonet-cloudgw1');
    assert.equal(layout.frrDir('cloudgw1'), '/run/octonet-lab/octonet/frr-cloudgw1');
    assert.ok(layout.isFixedNamespace('octonet-cloudgw2') && layout.isFixedNamespace('octonet-core'));
  });

  it("never claims another lab's namespaces, even when one name starts with the other", () => {
    const short = labLayout('lab', '/r');
    const long = labLayout('lab-node1', '/r');
    for (const ns of ['lab-node1-central', 'lab-node1-node1', 'lab-node1-underlay', 'lab-vm-x', 'labx-node1']) {
      assert.equal(short.isFixedNamespace(ns), false, ns);
    }
    assert.equal(short.isFixedNamespace('lab-node1'), true);
    assert.equal(long.isFixedNamespace('lab-node1'), false);
    assert.equal(long.isFixedNamespace('lab-node1-node12'), true);
  });

  it('keeps interface names within the 15 characters the kernel allows', () => {
    const layout = labLayout('a-rather-long-lab-name', '/r');
    for (const name of [
      layout.underlayPort('node200'),
      layout.physicalPort('node200'),
      layout.underlayPort('central'),
      layout.physicalPort('outside'),
      tapName('3f2c1a9e-8b7d-4c6e-9f01-23456789abcd'),
    ]) {
      assert.ok(name.length <= 15, name);
    }
    assert.equal(tapName('3f2c1a9e-8b7d-4c6e-9f01-23456789abcd'), 'tap3f2c1a9e-8b');
  });

  it('derives VTEP addresses and br-phy MACs from the node index', () => {
    assert.equal(vtepIp(1), '192.0.2.11');
    assert.equal(brPhyMac(1), '02:00:c0:00:02:0b');
    assert.equal(brPhyMac(200), '02:00:c0:00:02:d2');
  });

  it('validates names and MACs', () => {
    assert.throws(() => checkLabName('Bad_Name'), LabUsageError);
    assert.throws(() => checkLabName('-x'), LabUsageError);
    assert.throws(() => checkLabName('x'.repeat(25)), LabUsageError);
    assert.equal(checkLabName('test-1'), 'test-1');
    assert.equal(normalizeMac('FA:16:3E:00:00:01'), 'fa:16:3e:00:00:01');
    assert.throws(() => normalizeMac('fa:16:3e:00:00'), LabUsageError);
    assert.equal(defaultVmName('3f2c1a9e-8b7d'), 'vm-3f2c1a9e');
  });
});
