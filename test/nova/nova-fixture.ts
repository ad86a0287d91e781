/**
 * What the Nova suites share: a lab, the tests' Keystone, octonet on the lab's OVN with its Nova
 * notifier pointed at the real Nova, and that Nova (test/fixtures/nova.ts) with one fake-driver
 * nova-compute per lab node. Hooks run in this order: lab, Keystone, Nova's user, octonet, Nova.
 */
import assert from 'node:assert/strict';
import { before } from 'node:test';
import { useApi, type TestApi } from '../fixtures/api.js';
import { useKeystone, withToken, type KeystoneFixture, type TokenClient } from '../fixtures/keystone.js';
import { octonetNovaConfig, openstackAs, useNova, type NovaFixture } from '../fixtures/nova.js';
import type { Json } from '../fixtures/json.js';
import { pollUntil, useLab } from '../lab/lab-fixture.js';
import type { Lab } from '../../src/lab/index.js';

export interface NovaSuite {
  lab(): Lab;
  readonly keystone: KeystoneFixture;
  readonly api: TestApi;
  readonly nova: NovaFixture;
  /** octonet as the cloud admin (a Keystone token). */
  admin(): Promise<TokenClient>;
  /** octonet as the member of project A. */
  memberA(): Promise<TokenClient>;
  /** `openstack ... -f json` as a clouds.yaml cloud (`cloudAdmin`, `memberA`, ...); must succeed. */
  openstack(cloud: string, args: readonly string[]): Promise<Json>;
  /** `openstack ...` printing nothing (`server add port`), which must succeed. */
  openstackOk(cloud: string, args: readonly string[]): Promise<void>;
  /** The notifier's "event delivered" log lines for `port`, as `event` names. */
  delivered(port: string): string[];
  /** Waits until octonet logged Nova's 200 for `event` on `port`. */
  waitDelivered(port: string, event: string): Promise<void>;
}

export function useNovaSuite(labName: string, nodes: number): NovaSuite {
  const { lab } = useLab({ name: labName, nodes });
  const keystone = useKeystone();
  let novaUser: Awaited<ReturnType<KeystoneFixture['addServiceUser']>>;
  before(async () => {
    // admin for Nova's own policy (external events) and octonet's; service for binding:profile,
    // which Neutron's policy (and octonet's) gives the service role only.
    novaUser = await keystone.addServiceUser('nova', ['admin', 'service']);
  });
  const api = useApi('sqlite', {
    config: () => ({
      ...keystone.octonetConfig(),
      ovn: { nb_connection: lab().nb, sb_connection: lab().sb },
      nova: octonetNovaConfig(keystone.url, novaUser),
    }),
  });
  const hosts = Array.from({ length: nodes }, (_, i) => `node${i + 1}`);
  const nova = useNova(() => ({ keystone, neutronUrl: api.url, computeHosts: hosts, novaUser }));
  let cloudsYaml: string | undefined;
  const clouds = () => (cloudsYaml ??= keystone.writeCloudsYaml());
  const openstack = async (cloud: string, args: readonly string[]) => {
    const r = await openstackAs(clouds(), cloud, [...args, '-f', 'json']);
    assert.equal(r.code, 0, `openstack ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout) as Json;
  };
  const openstackOk = async (cloud: string, args: readonly string[]) => {
    const r = await openstackAs(clouds(), cloud, args);
    assert.equal(r.code, 0, `openstack ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  };
  const delivered = (port: string) =>
    api
      .logs()
      .filter((line) => line.msg === 'nova: event delivered' && line.port === port)
      .map((line) => String(line.event));
  return {
    lab,
    keystone,
    api,
    nova,
    admin: async () => withToken(api.admin, await keystone.issueToken(keystone.users.cloudAdmin)),
    memberA: async () => withToken(api.admin, await keystone.issueToken(keystone.users.memberA)),
    openstack,
    openstackOk,
    delivered,
    waitDelivered: async (port, event) => {
      await pollUntil(
        async () => delivered(port).includes(event),
        `Nova accepting ${event} for port ${port} (delivered so far: ${delivered(port).join(', ') || 'none'})`,
        60_000,
      );
    },
  };
}
