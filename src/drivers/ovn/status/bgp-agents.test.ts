/** The DR agent a BGP agent's SB registration makes: where it registers, its heartbeat, liveness. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChassisPrivateRow, ChassisRow } from '../ovsdb/index.js';
import { BGP_AGENT_TYPE, bgpAgentView } from './bgp-agents.js';

const NOW = Date.parse('2026-11-25T19:00:00Z');
const liveness = { nbCfg: 10, nowMs: NOW, agentDownTimeMs: 75_000 };
const AGENT_ID = '8d1d7d43-6c3b-4a5e-9d7e-3f1f0c1f2a10';

const chassis = (external_ids: Record<string, string> = {}): ChassisRow =>
  ({
    _uuid: 'c1',
    encaps: [],
    external_ids,
    hostname: 'gw1',
    name: 'chassis-gw1',
    nb_cfg: 0,
    other_config: { 'ovn-cms-options': 'enable-chassis-as-gw,availability-zones=az1' },
    transport_zones: [],
    vtep_logical_switches: [],
  }) as ChassisRow;
const chassisPrivate = (external_ids: Record<string, string> = {}): ChassisPrivateRow =>
  ({
    _uuid: 'p1',
    chassis: 'c1',
    external_ids,
    name: 'chassis-gw1',
    nb_cfg: 10,
    nb_cfg_timestamp: NOW - 1000,
  }) as ChassisPrivateRow;

describe('bgpAgentView', () => {
  it('is absent until the agent registers', () => {
    assert.equal(bgpAgentView(chassis(), chassisPrivate(), liveness), undefined);
  });

  it('makes a DR agent as n-d-r names it, from Chassis_Private', () => {
    const view = bgpAgentView(
      chassis(),
      chassisPrivate({ 'octonet:bgp-agent-id': AGENT_ID, 'octonet:bgp-agent-heartbeat': '10' }),
      liveness,
    )!;
    assert.equal(view.id, AGENT_ID);
    assert.equal(view.agent_type, BGP_AGENT_TYPE);
    assert.equal(view.binary, 'neutron-bgp-dragent');
    assert.equal(view.topic, 'bgp_dragent');
    assert.equal(view.host, 'gw1');
    assert.equal(view.availability_zone, 'az1');
    assert.equal(view.alive, true);
  });

  it('falls back to the Chassis row', () => {
    const view = bgpAgentView(chassis({ 'octonet:bgp-agent-id': AGENT_ID }), chassisPrivate(), liveness);
    assert.equal(view?.id, AGENT_ID);
  });

  it('is alive one nb_cfg behind, dead further behind once the chassis is quiet too', () => {
    const at = (beat: string, quietMs: number) =>
      bgpAgentView(
        chassis(),
        {
          ...chassisPrivate({ 'octonet:bgp-agent-id': AGENT_ID, 'octonet:bgp-agent-heartbeat': beat }),
          nb_cfg_timestamp: NOW - quietMs,
        },
        liveness,
      )!.alive;
    assert.equal(at('9', 600_000), true);
    assert.equal(at('5', 600_000), false);
    assert.equal(at('5', 1000), true, 'heard from within the agent down time');
  });

  it('takes a timestamp heartbeat as the last report', () => {
    const view = (beat: string) =>
      bgpAgentView(
        chassis(),
        chassisPrivate({ 'octonet:bgp-agent-id': AGENT_ID, 'octonet:bgp-agent-heartbeat': beat }),
        liveness,
      )!;
    assert.equal(view(new Date(NOW - 5000).toISOString()).alive, true);
    assert.equal(view(String(NOW - 5000)).alive, true);
    assert.equal(view(new Date(NOW - 600_000).toISOString()).alive, false);
    assert.equal(view(new Date(NOW - 5000).toISOString()).heartbeat_timestamp, '2026-11-25 18:59:55.000000+00:00');
    assert.equal(view('garbage').alive, false);
  });
});
