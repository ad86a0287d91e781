/** Filtering and policy of the availability-zone list, with a fixed zone source. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPolicyAuthorizer } from '../auth/policy.js';
import { AvailabilityZoneService, type AvailabilityZone } from './availability-zones.js';
import { makeContext } from './context.js';

const ZONES: AvailabilityZone[] = [
  { name: 'az1', resource: 'router', state: 'available' },
  { name: 'az2', resource: 'router', state: 'unavailable' },
  { name: 'az1', resource: 'network', state: 'available' },
];

describe('AvailabilityZoneService', () => {
  const service = new AvailabilityZoneService(createPolicyAuthorizer(), async () => ZONES);
  const reader = makeContext({ requestId: 'r', projectId: 'p', roles: ['member', 'reader'] });

  it('matches values exactly, OR within an attribute and AND across attributes', async () => {
    assert.deepEqual(await service.list(reader, {}), ZONES);
    assert.deepEqual(await service.list(reader, { name: ['az1'], resource: ['router'] }), [ZONES[0]]);
    assert.deepEqual(await service.list(reader, { state: ['available', 'unavailable'], resource: ['router'] }), [
      ZONES[0],
      ZONES[1],
    ]);
    assert.deepEqual(await service.list(reader, { name: ['AZ1'] }), []);
  });

  it('shows zones only to callers with the reader role', async () => {
    const noRoles = makeContext({ requestId: 'r', projectId: 'p', roles: [] });
    assert.deepEqual(await service.list(noRoles, {}), []);
  });
});
