/**
 * The demo's BGP part, on the demo lab's BGP fabric (`lab up --bgp`: two FRR cloudgws sharing the
 * external subnet's gateway by VRRP, a core behind them with no route but what BGP teaches it).
 * `startBgp`, early in the demo: a BGP speaker with both cloudgws as MD5 peers and `octonet
 * bgp-agent` beside each node, so FRR's first configuration and the sessions come up while the
 * demo does its other steps; `addGatewayNetwork` as soon as the external network exists; then
 * `showBgp`, once the router and floating IP exist: the core pings vm1's floating IP, which it
 * can only reach through the /32 the active gateway node announced; prints the cloudgw's BGP path
 * for it (from `show bgp ipv4 json`) and the core's kernel route. Everything lives in the demo's
 * lab and API, so the demo's usual cleanup removes it (`lab down` stops the agents by pidfile).
 */
import { fileURLToPath } from 'node:url';
import { agentIdFor } from '../bgp/agent-sb.js';
import { cloudgwPeerBodies, type Lab, type LabStatus } from '../lab/index.js';

const indent = (text: string) => text.replace(/^(?=.)/gm, '  ');

/** The demo speaker's AS: a private one, as the lab's cloudgws (64901) and core (64900) use. */
const LOCAL_AS = 64999;
const WAIT_MS = 60_000;

type Call = (method: string, path: string, body?: unknown) => Promise<Record<string, Record<string, unknown>>>;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const giveUpAt = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what}: not after ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface RibPath {
  nexthops?: { ip: string }[];
  peerId?: string;
  path?: string;
  bestpath?: boolean;
}

/** The cloudgw's paths for `prefix`, from `show bgp ipv4 json`. */
async function ribPaths(lab: Lab, cloudgw: string, prefix: string): Promise<RibPath[]> {
  const json = JSON.parse(await lab.bgpVtysh(cloudgw, 'show bgp ipv4 json')) as { routes?: Record<string, RibPath[]> };
  return json.routes?.[prefix] ?? [];
}

export interface DemoBgp {
  readonly speakerId: string;
  /** The speaker is hosted by every node's agent (which n-d-r's scheduler alone would not do). */
  readonly scheduled: Promise<void>;
  readonly bgp: NonNullable<LabStatus['bgp']>;
  readonly call: Call;
  readonly lab: Lab;
}

/** Puts the speaker on an agent once the agent has reported in (unless the scheduler did already). */
async function scheduleOn(call: Call, agentId: string, speakerId: string): Promise<void> {
  const hosted = await until(`the BGP agent ${agentId}`, async () => {
    const answer = await call('GET', `/v2.0/agents/${agentId}/bgp-drinstances`).catch(() => undefined);
    return answer?.bgp_speakers as unknown as { id: string }[] | undefined;
  });
  if (!hosted.some((s) => s.id === speakerId)) {
    await call('POST', `/v2.0/agents/${agentId}/bgp-drinstances`, { bgp_speaker_id: speakerId });
  }
}

/** The speaker, its peers and the agents; returns before the agents are up. */
export async function startBgp(input: { url: string; call: Call; lab: Lab }): Promise<DemoBgp> {
  const { call, lab } = input;
  const bgp = (await lab.status()).bgp;
  if (!bgp) throw new Error('the demo lab has no BGP fabric');
  const speaker = (
    await call('POST', '/v2.0/bgp-speakers', {
      bgp_speaker: { name: 'demo-speaker', local_as: LOCAL_AS, ip_version: 4, advertise_floating_ip_host_routes: true },
    })
  ).bgp_speaker!;
  for (const body of cloudgwPeerBodies(bgp)) {
    const peer = (await call('POST', '/v2.0/bgp-peers', { bgp_peer: body })).bgp_peer!;
    await call('PUT', `/v2.0/bgp-speakers/${String(speaker.id)}/add_bgp_peer`, { bgp_peer_id: peer.id });
  }

  // The agents read the peers' MD5 passwords from the service-only endpoint for DR agents
  // (`/v2.0/octonet/bgp-dragents/{id}/speakers`); the public API never shows them.
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  for (const node of bgp.nodes) {
    const argv = [process.execPath, main, 'bgp-agent', '--chassis', node.name, '--ovn-sb', lab.sb];
    argv.push('--frr-dir', node.frrDir, '--router-id', node.address, '--os-url', input.url);
    // A speaker's scheduling and its gateway network are API-only changes, which the agent sees by
    // polling: every 0.5 s rather than 2 s, so the demo does not wait on them.
    argv.push('--poll-interval', '0.5');
    lab.startBesideNode(node.name, 'bgp-agent', argv);
  }
  const speakerId = String(speaker.id);
  // Scheduling waits for the agents to report in; the demo goes on meanwhile (see `scheduled`).
  const scheduled = Promise.all(bgp.nodes.map((node) => scheduleOn(call, agentIdFor(node.name), speakerId)));
  void scheduled.catch(() => undefined); // awaited, and so reported, in addGatewayNetwork
  return { speakerId, bgp, call, lab, scheduled: scheduled.then(() => undefined) };
}

/** The external network joins the speaker (as soon as it exists: the agents' next pass renders it). */
export async function addGatewayNetwork(demo: DemoBgp, networkId: string): Promise<void> {
  await demo.scheduled;
  await demo.call('PUT', `/v2.0/bgp-speakers/${demo.speakerId}/add_gateway_network`, { network_id: networkId });
}

/** The core reaches `floatingIp` through the /32 the active gateway node announced. */
export async function showBgp(demo: DemoBgp, floatingIp: string): Promise<void> {
  const { bgp, lab } = demo;
  const out = process.stdout;
  const started = performance.now();
  const input = { floatingIp };
  const prefix = `${input.floatingIp}/32`;
  const [best] = await until(`${prefix} in cloudgw1's BGP table`, async () => {
    const paths = await ribPaths(lab, 'cloudgw1', prefix);
    return paths.length ? paths : undefined;
  });
  const ping = (count: number) =>
    lab.exec(lab.coreCommand(['ping', '-c', String(count), '-i', '0.2', '-W', '1', input.floatingIp]));
  await until('the core to reach the floating IP', async () => ((await ping(1)).code === 0 ? true : undefined));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const toFip = await ping(2);
  const announcer = bgp.nodes.find((n) => n.address === best!.peerId)?.name ?? best!.peerId;
  const coreRoute = await lab.exec(lab.coreCommand(['ip', 'route', 'show', prefix]));
  out.write(`
BGP, as Wikimedia wires its cloud gateways: two FRR "cloudgws" (${bgp.cloudgws.map((c) => c.addresses[0]).join(', ')}, AS ${bgp.cloudgws[0]!.asn})
share the external gateway ${bgp.gatewayIp} by VRRP and pass what they learn to a "core" router (AS ${bgp.core.asn}),
which has no route off its own link but what BGP gives it. A BGP speaker (AS ${LOCAL_AS}) with both cloudgws as
MD5 peers and the external network as its gateway network; \`octonet bgp-agent\` beside each node
announces vm1's floating IP from the node holding the router's gateway (${announcer}); the demo waited
${seconds} s for it after the outside reached it.
cloudgw1's BGP path for it:

  $ vtysh --vty_socket ${bgp.cloudgws[0]!.frrDir} -c 'show bgp ipv4 json'

  ${prefix} next hop ${best!.nexthops?.[0]?.ip ?? '?'} (the router's gateway), learned from ${best!.peerId} (${announcer}), AS path ${best!.path ?? '?'}

The core's route to it, and the core reaching vm1 there:

  $ ip netns exec ${bgp.core.namespace} ip route show ${prefix}
${indent(coreRoute.stdout || coreRoute.stderr)}
  $ ip netns exec ${bgp.core.namespace} ping -c 2 ${input.floatingIp}
${indent(toFip.stdout || toFip.stderr)}`);
}
