/**
 * The demo (`octonet` with no arguments): the API on a temporary SQLite database, a small sample
 * topology created through the API itself, and the `openstack` commands to try against it. The
 * temporary directory is removed on exit.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config.js';
import { createLogger, startServer } from './serve.js';

async function call(url: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const response = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, any>) : {};
}

/**
 * Runs the real `openstack` CLI against the demo and returns what it printed (or why it could not).
 * Asynchronously: the server answering it runs in this very process.
 */
function openstack(url: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const env = { ...process.env, OS_AUTH_TYPE: 'none', OS_ENDPOINT: url };
    execFile('openstack', args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      if (missing) resolve('  (the openstack CLI is not installed: apt-get install python3-openstackclient)\n');
      else resolve((stdout || stderr).replace(/^(?=.)/gm, '  '));
    });
  });
}

export async function runDemo(listen: string): Promise<{ stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'octonet-demo-'));
  const config = loadConfig({
    env: {},
    overrides: { listen, state_dir: dir, database: `sqlite:${join(dir, 'octonet.db')}`, log_level: 'warn' },
  });
  const server = await startServer(config, createLogger(config));
  const url = server.url;

  const net = (await call(url, 'POST', '/v2.0/networks', { network: { name: 'demo-net' } })).network;
  const subnet = (
    await call(url, 'POST', '/v2.0/subnets', {
      subnet: {
        name: 'demo-subnet',
        network_id: net.id,
        ip_version: 4,
        cidr: '10.0.0.0/24',
        dns_nameservers: ['192.0.2.53'],
      },
    })
  ).subnet;
  const port = (await call(url, 'POST', '/v2.0/ports', { port: { name: 'demo-port', network_id: net.id } })).port;
  const portList = await openstack(url, ['port', 'list', '--network', 'demo-net']);

  const out = process.stdout;
  out.write(`
octonet is serving the OpenStack Networking API at ${url} (SQLite in ${dir}).

Created through the API: network ${net.name} (${net.id}, geneve VNI ${net['provider:segmentation_id']}, MTU ${net.mtu}),
subnet ${subnet.name} ${subnet.cidr}, port ${port.name} with ${port.fixed_ips.map((f: { ip_address: string }) => f.ip_address).join(', ')} and MAC ${port.mac_address}.

The real openstack CLI, talking to it (no Keystone in noauth mode: you are admin of project ${config.noauth_default_project_id}):

  $ openstack port list --network demo-net
${portList}
Try more:

  export OS_AUTH_TYPE=none OS_ENDPOINT=${url}
  openstack network list --long
  openstack subnet show demo-subnet
  openstack port create --network demo-net --fixed-ip subnet=demo-subnet,ip-address=10.0.0.50 web
  openstack security group rule create default --protocol tcp --dst-port 22
  openstack extension list --network

Or plain HTTP, as any project and role:

  curl -s ${url}/v2.0/networks -H 'X-Project-Id: p1' -H 'X-Roles: member,reader'

Press Ctrl-C to stop (the demo database is removed).
`);

  return {
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
