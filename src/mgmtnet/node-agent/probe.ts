/**
 * The HeartbeatPathOpen probe: from the node interface, a ping at the network's full MTU with
 * "don't fragment" to a peer on the management path (the link router's provider-side address, or
 * another controller's port). An answer proves, in one packet each way, what a heartbeat needs
 * on this node: the interface is wired into OVN on this chassis, port security accepts its MAC and
 * address, the security groups pass the path (stateful: the reply is let back in), the tunnels or
 * the provider network carry it, and a heartbeat as large as the MTU is not dropped on the way.
 * If the full-size ping fails while a small one passes, the reason says so (an MTU black hole).
 *
 * ICMP rather than UDP 5555: a UDP probe to a peer's health manager gets no answer when it works
 * (only when nothing listens), so it cannot tell "delivered" from "dropped".
 */
import { finding, type Finding } from '../conditions.js';
import type { NodeStep } from './context.js';
import type { NodeHost } from './host.js';
import { familyOf, type WantedAddress } from './link.js';
import type { NeutronPort } from './neutron.js';
import { peerAddresses } from './port-lookup.js';

/** IP + ICMP header bytes to subtract from the MTU for the ping payload. */
const HEADERS = { 4: 20 + 8, 6: 40 + 8 } as const;

async function ping(host: NodeHost, dev: string, target: string, size: number): Promise<boolean> {
  const family = familyOf(target);
  // -c 1 -w 3: up to three tries a second apart, stopping at the first answer (the first
  // packet may wait for neighbour resolution).
  const argv = [
    'ping',
    `-${family}`,
    '-n',
    '-q',
    '-I',
    dev,
    '-c',
    '1',
    '-w',
    '3',
    '-M',
    'do',
    '-s',
    String(size),
    target,
  ];
  return (await host(argv, { timeoutMs: 10_000 })).code === 0;
}

/** A peer to ping, with the largest packet the path to it must carry. */
export interface ProbeTarget {
  address: string;
  mtu: number;
}

async function probeHeartbeatPath(host: NodeHost, dev: string, targets: readonly ProbeTarget[]): Promise<Finding> {
  if (targets.length === 0) {
    return {
      status: 'Unknown',
      reason: 'NoPeerToProbe',
      message: 'no other controller port and no link router to probe',
    };
  }
  const failed: string[] = [];
  for (const { address, mtu } of targets) {
    if (await ping(host, dev, address, mtu - HEADERS[familyOf(address)])) {
      return {
        status: 'True',
        reason: 'PeerAnswered',
        message: `${address} answered a ${mtu}-byte ping (don't fragment) from ${dev}`,
      };
    }
    failed.push(address);
  }
  const first = targets[0]!;
  if (await ping(host, dev, first.address, 56)) {
    return {
      status: 'False',
      reason: 'MtuBlackhole',
      message: `${first.address} answers small pings but not ${first.mtu}-byte ones: something on the path has a smaller MTU than ${first.mtu}`,
    };
  }
  return {
    status: 'False',
    reason: 'NoPeerAnswered',
    message: `no answer from ${failed.join(', ')} (check the security groups allow ICMP from the management CIDR, and the peers are plugged)`,
  };
}

export interface ProbeStepInput {
  /** False: the probe is off (`--no-probe`). */
  readonly enabled: boolean;
  /** Plugged and Addressed both True: there is an interface to probe from. */
  readonly plugged: boolean;
  readonly port: NeutronPort;
  readonly mtu: number;
  readonly addresses: readonly WantedAddress[];
  /** The link router's addresses on this network (first choice: they are always there). */
  readonly gateways: readonly ProbeTarget[];
}

/** The probe step: up to three targets of the interface's families, the link router first, then peers. */
export async function probeStep(step: NodeStep, input: ProbeStepInput): Promise<Finding> {
  if (!input.enabled) return finding('Unknown', 'ProbeDisabled', 'the probe is off');
  if (!input.plugged) {
    return finding('Unknown', 'NotPlugged', 'nothing to probe from until the interface is plugged and addressed');
  }
  const families = new Set(input.addresses.map((a) => a.family));
  const peers = (await peerAddresses(step.client, step.spec, input.port)).map((address) => ({
    address,
    mtu: input.mtu,
  }));
  const targets = [...input.gateways, ...peers].filter((t) => families.has(familyOf(t.address))).slice(0, 3);
  return probeHeartbeatPath(step.host, step.dev, targets);
}
