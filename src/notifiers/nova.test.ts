import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { configSchema } from '../config/config.js';
import { adminContext } from '../core/context.js';
import type { DriverHost, FloatingIpState, PortState } from '../drivers/host.js';
import type { NovaEvent } from './nova-client.js';
import { isComputePort, NovaNotifier, statusEvent } from './nova.js';

const SERVER = '0b6a3c2e-7a0e-4c39-9f0c-2f1b3c4d5e6f';

const port = (fields: Partial<PortState>): PortState =>
  ({ id: 'p1', device_id: SERVER, device_owner: 'compute:nova', status: 'DOWN', ...fields }) as PortState;

describe('Nova events', () => {
  it('takes only compute ports with a UUID-like device_id', () => {
    assert.equal(isComputePort(port({})), true);
    assert.equal(isComputePort(port({ device_id: 'not-a-uuid' })), false);
    assert.equal(isComputePort(port({ device_id: '' })), false);
    assert.equal(isComputePort(port({ device_owner: 'network:dhcp' })), false);
  });

  it('maps status transitions as record_port_status_changed', () => {
    const name = (previous: string | undefined, status: string) => {
      const e = statusEvent(port({ status }), previous);
      return e && `${e.name}/${e.status}`;
    };
    assert.equal(name('DOWN', 'ACTIVE'), 'network-vif-plugged/completed');
    assert.equal(name('BUILD', 'ACTIVE'), 'network-vif-plugged/completed');
    assert.equal(name(undefined, 'ERROR'), 'network-vif-plugged/failed');
    assert.equal(name('ACTIVE', 'DOWN'), 'network-vif-unplugged/completed');
    assert.equal(name('ACTIVE', 'ERROR'), undefined);
    assert.equal(name('ERROR', 'DOWN'), undefined);
    assert.equal(name('DOWN', 'DOWN'), undefined);
  });

  it('sends network-changed for the old and the new port when a floating IP moves', async () => {
    const sent: NovaEvent[][] = [];
    const ports = new Map([
      ['old', port({ id: 'old' })],
      ['new', port({ id: 'new', device_id: '1b6a3c2e-7a0e-4c39-9f0c-2f1b3c4d5e6f' })],
    ]);
    const notifier = new NovaNotifier({
      config: configSchema.parse({}).nova,
      sink: {
        postEvents: async (events) => (sent.push([...events]), { status: 200, body: { events: [] } }),
        forgetToken() {},
      },
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
    });
    await notifier.start({ reader: { port: async (id: string) => ports.get(id) } } as unknown as DriverHost);
    const fip = (port_id: string | null) => ({ id: 'f1', port_id }) as FloatingIpState;
    const request = { ...adminContext(), requestId: 'req-1' };
    await notifier.postcommit({
      resource: 'floatingip',
      operation: 'update',
      request,
      current: fip('new'),
      original: fip('old'),
    });
    await notifier.postcommit({ resource: 'floatingip', operation: 'delete', request, current: fip(null) });
    // A report from the data plane (not an API request) is no network change.
    await notifier.postcommit({
      resource: 'floatingip',
      operation: 'update',
      request: adminContext(),
      current: fip('new'),
      original: fip(null),
    });
    await new Promise((resolve) => setImmediate(resolve));
    await notifier.stop();
    assert.deepEqual(
      sent.flat().map((e) => `${e.name}:${e.tag}`),
      ['network-changed:old', 'network-changed:new'],
    );
  });

  it("sends a plug at once, even while a boot's network-changed holds the data window", async () => {
    const sent: NovaEvent[][] = [];
    let delivered: () => void = () => {};
    const plugSent = new Promise<void>((resolve) => (delivered = resolve));
    const notifier = new NovaNotifier({
      // An hour: a plug that waited out this window would never arrive within the test.
      config: { ...configSchema.parse({}).nova, send_events_interval: 3600 },
      sink: {
        postEvents: async (events) => {
          sent.push([...events]);
          if (events.some((e) => e.name === 'network-vif-plugged')) delivered();
          return { status: 200, body: { events: events.map(() => ({ code: 200 })) } };
        },
        forgetToken() {},
      },
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
    });
    const request = { ...adminContext(), requestId: 'req-1' };
    const down = port({ status: 'DOWN' });
    // Nova's own port update during a boot: the first data event, which opens the window.
    await notifier.postcommit({ resource: 'port', operation: 'update', request, current: down, original: down });
    await notifier.postcommit({
      resource: 'port',
      operation: 'update',
      request: adminContext(),
      current: port({ status: 'ACTIVE' }),
      original: down,
    });
    await plugSent;
    assert.deepEqual(
      sent.map((batch) => batch.map((e) => e.name)),
      [['network-changed'], ['network-vif-plugged']],
    );
    await notifier.stop();
  });
});
