/**
 * `octonet bgp-agent --chassis NAME --ovn-sb REMOTE --frr-dir DIR --router-id IP`: the node's BGP
 * speaker agent (`src/bgp/agent.ts`). The API is reached like the other node tools (`--os-url` for
 * noauth, else the `OS_*` variables); FRR over its vty sockets in `--frr-dir`. `--once` runs one
 * full pass, prints what it announces and exits (0, or 1 when the pass failed).
 *
 * MD5 secrets come with the peers from octonet's service-only endpoint
 * (`GET /v2.0/octonet/bgp-dragents/{id}/speakers`, docs/bgp-agent.md): the agent's credentials need
 * the `service` role (noauth: none needed). Against a Neutron with n-d-r, whose public API never
 * shows a peer's `password` (its DR agent gets it over RPC), `--peer-passwords FILE` gives them:
 * one `PEER_IP SECRET` per line, used for the peers the API gives no secret for.
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { BgpAgent, type BgpAgentLog } from '../bgp/agent.js';
import { OvsdbClient, SB_TABLES, type SbTables } from '../drivers/ovn/ovsdb/index.js';
import { NeutronClient } from '../mgmtnet/neutron-client.js';

interface BgpAgentCliOptions {
  chassis: string;
  ovnSb: string;
  frrDir: string;
  routerId: string;
  osUrl?: string;
  distributedFloatingIps?: boolean;
  peerPasswords?: string;
  bfdInterval: number;
  pollInterval: number;
  fullInterval: number;
  once?: boolean;
}

const log: BgpAgentLog = {
  info: (fields, message) => line('', fields, message),
  warn: (fields, message) => line('warning: ', fields, message),
};

function line(level: string, fields: object, message: string): void {
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  process.stderr.write(`${new Date().toISOString()} bgp-agent: ${level}${message}${rest ? ` ${rest}` : ''}\n`);
}

export function parsePeerPasswords(text: string): Map<string, string> {
  const passwords = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const entry = raw.trim();
    if (!entry || entry.startsWith('#')) continue;
    const [ip, secret] = entry.split(/\s+/, 2);
    if (!ip || !secret)
      throw new InvalidArgumentError(`peer password line ${JSON.stringify(entry)}: want PEER_IP SECRET`);
    passwords.set(ip, secret);
  }
  return passwords;
}

const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number');
  return n;
};

async function runBgpAgent(options: BgpAgentCliOptions): Promise<number> {
  const client = await NeutronClient.fromEnvironment(options.osUrl);
  const sb = new OvsdbClient<SbTables>({
    remotes: options.ovnSb.split(','),
    database: 'OVN_Southbound',
    tables: SB_TABLES,
  });
  await sb.start();
  const agent = new BgpAgent({
    client,
    sb,
    chassis: options.chassis,
    routerId: options.routerId,
    frr: { vtyDir: options.frrDir },
    stateDir: options.frrDir,
    distributedFloatingIps: options.distributedFloatingIps ?? false,
    peerPasswords: options.peerPasswords ? parsePeerPasswords(readFileSync(options.peerPasswords, 'utf8')) : new Map(),
    bfd: { intervalMs: options.bfdInterval, multiplier: 3 },
    pollIntervalMs: options.pollInterval * 1000,
    fullPassIntervalMs: options.fullInterval * 1000,
    log,
  });
  if (options.once) {
    try {
      const report = await agent.pass(true);
      process.stdout.write(JSON.stringify({ agentId: agent.agentId, ...report }, null, 2) + '\n');
      return 0;
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'pass failed');
      return 1;
    } finally {
      await sb.close();
    }
  }
  log.info({ chassis: options.chassis, agentId: agent.agentId }, 'started');
  agent.start();
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await agent.stop();
  await sb.close();
  return 0;
}

export function registerBgpAgentCommand(program: Command): void {
  program
    .command('bgp-agent')
    .description("the node's BGP agent: renders FRR from the API, announces what is active on this chassis")
    .requiredOption('--chassis <name>', "this node's OVN chassis name (its system-id)")
    .requiredOption('--ovn-sb <remote>', 'OVN southbound database (unix:PATH or tcp:HOST:PORT, comma-separated)')
    .requiredOption('--frr-dir <dir>', "FRR's vty socket directory (its --vty_socket); the agent's files go there too")
    .requiredOption('--router-id <ip>', 'BGP router id (the node address the peers see)')
    .option('--os-url <url>', 'Networking API URL, noauth (default: OS_* variables / clouds.yaml)')
    .option(
      '--distributed-floating-ips',
      'announce floating IPs from the chassis of their port (enable_distributed_floating_ip)',
    )
    .option(
      '--peer-passwords <file>',
      'MD5 secrets for peers the API gives none for (a Neutron with n-d-r), one "PEER_IP SECRET" per line',
    )
    .option('--bfd-interval <ms>', 'BFD receive and transmit interval', positive, 100)
    .option('--poll-interval <s>', 'seconds between API polls (southbound changes start a pass at once)', positive, 2)
    .option('--full-interval <s>', 'seconds between full passes through frr-reload.py', positive, 60)
    .option('--once', 'one full pass, print it, exit')
    .action(async (options: BgpAgentCliOptions) => {
      process.exitCode = await runBgpAgent(options);
    });
}
