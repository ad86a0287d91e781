/**
 * BGP MD5 secrets from the API, with real FRR: the agents read the peers' `password` from the
 * service-only `GET /v2.0/octonet/bgp-dragents/{id}/speakers` (no `--peer-passwords` file), so
 * every node's session with both cloudgws comes up with the secret configured on both sides; a
 * wrong secret set through the API (`PUT /v2.0/bgp-peers/{id}`) keeps that cloudgw's sessions down
 * while the other cloudgw's stay up, and the right one brings them back.
 *
 * Lab `bgpa`: 3 nodes, gateways on node2 and node3, `--bgp`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Json } from '../fixtures/json.js';
import { notRoot, pollUntil } from './lab-fixture.js';
import { useBgpWorld } from './bgp-fixture.js';

describe('octonet on the lab: BGP MD5 secrets from the API', { skip: notRoot }, () => {
  const world = useBgpWorld('bgpa', { distributed: false });
  const { lab, api } = world;
  const fabric = async () => (await lab().status()).bgp!;

  /** Each node address → its session state as the cloudgw sees it (`show bgp neighbors json`). */
  const states = async (cloudgw: string): Promise<Map<string, string>> => {
    const json = JSON.parse(await lab().bgpVtysh(cloudgw, 'show bgp neighbors json')) as Record<string, Json>;
    return new Map(Object.entries(json).map(([address, n]) => [address, String(n.bgpState)]));
  };
  const nodeStates = async (cloudgw: string): Promise<string[]> => {
    const all = await states(cloudgw);
    return (await fabric()).nodes.map((n) => all.get(n.address) ?? 'none');
  };
  const allUp = (cloudgw: string) =>
    pollUntil(
      async () => (await nodeStates(cloudgw)).every((s) => s === 'Established'),
      `every node's session with ${cloudgw} up`,
    );
  /** Every node's FRR has `neighbor <peer> password <secret>`. */
  const nodesConfigured = async (peer: string, secret: string) => {
    for (const node of (await fabric()).nodes) {
      await pollUntil(
        async () =>
          (await lab().bgpVtysh(node.name, 'show running-config')).includes(` neighbor ${peer} password ${secret}\n`),
        `${node.name}'s FRR to use ${secret} with ${peer}`,
      );
    }
  };

  it('brings every session up with the secret from the API on both sides', async () => {
    const { cloudgws, nodes, password } = await fabric();
    for (const cloudgw of cloudgws) {
      await nodesConfigured(cloudgw.addresses[0]!, password);
      await allUp(cloudgw.name);
      // The cloudgw side (the lab's config): the nodes are in a peer-group with the same secret.
      const running = await lab().bgpVtysh(cloudgw.name, 'show running-config');
      assert.ok(running.includes(` neighbor NODES password ${password}\n`), `${cloudgw.name} has the secret`);
      for (const node of nodes) assert.ok(running.includes(` neighbor ${node.address} peer-group NODES\n`), node.name);
    }
  });

  it('keeps the sessions down with a wrong secret, and up again with the right one', async () => {
    const { cloudgws, password } = await fabric();
    const [good, bad] = cloudgws;
    const peer = ((await api.admin.get('/v2.0/bgp-peers')).body.bgp_peers as Json[]).find(
      (p) => p.peer_ip === bad!.addresses[0],
    )!;
    const wrong = await api.admin.put(`/v2.0/bgp-peers/${peer.id}`, { bgp_peer: { password: 'not-the-secret' } });
    assert.equal(wrong.status, 200, wrong.text);
    await nodesConfigured(bad!.addresses[0]!, 'not-the-secret');
    await pollUntil(
      async () => (await nodeStates(bad!.name)).every((s) => s !== 'Established'),
      `every session with ${bad!.name} down`,
    );
    // The nodes keep trying (the agents' full passes too); none gets through with the wrong secret.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    assert.deepEqual(
      (await nodeStates(bad!.name)).filter((s) => s === 'Established'),
      [],
      `no session with ${bad!.name}`,
    );
    assert.deepEqual(
      (await nodeStates(good!.name)).filter((s) => s !== 'Established'),
      [],
      `${good!.name}, with the right secret, stays up`,
    );
    const right = await api.admin.put(`/v2.0/bgp-peers/${peer.id}`, { bgp_peer: { password } });
    assert.equal(right.status, 200, right.text);
    await nodesConfigured(bad!.addresses[0]!, password);
    await allUp(bad!.name);
  });
});
