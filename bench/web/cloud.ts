/**
 * A cloud of a given size for the page bench, built through the API in bulk: networks of
 * `portsPerNetwork` ports each (one subnet each), and one router per network up to `routers`, each
 * with an interface on its network.
 */
import type { Client } from '../../test/fixtures/api.js';

export interface BenchCloud {
  networkIds: string[];
  portIds: string[];
  routerIds: string[];
}

async function ok<T>(response: Promise<{ status: number; body: unknown; text: string }>, what: string): Promise<T> {
  const r = await response;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
  return r.body as T;
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export async function buildBenchCloud(
  admin: Client,
  ports: number,
  routers: number,
  portsPerNetwork = 20,
): Promise<BenchCloud> {
  const networkCount = Math.ceil(ports / portsPerNetwork);
  const networkIds: string[] = [];
  for (const chunk of chunks([...Array(networkCount).keys()], 200)) {
    const body = await ok<{ networks: { id: string }[] }>(
      admin.post('/v2.0/networks', { networks: chunk.map((i) => ({ name: `net-${i}` })) }),
      'networks',
    );
    networkIds.push(...body.networks.map((n) => n.id));
  }
  const subnetIds: string[] = [];
  for (const chunk of chunks([...networkIds.entries()], 200)) {
    const body = await ok<{ subnets: { id: string }[] }>(
      admin.post('/v2.0/subnets', {
        subnets: chunk.map(([i, id]) => ({
          network_id: id,
          cidr: `10.${Math.floor(i / 256)}.${i % 256}.0/24`,
          ip_version: 4,
        })),
      }),
      'subnets',
    );
    subnetIds.push(...body.subnets.map((s) => s.id));
  }
  const portIds: string[] = [];
  const portBodies = [...Array(ports).keys()].map((i) => ({
    network_id: networkIds[Math.floor(i / portsPerNetwork)],
    name: `vm-${i}`,
    device_owner: 'compute:nova',
  }));
  for (const chunk of chunks(portBodies, 500)) {
    const body = await ok<{ ports: { id: string }[] }>(admin.post('/v2.0/ports', { ports: chunk }), 'ports');
    portIds.push(...body.ports.map((p) => p.id));
  }
  const routerIds: string[] = [];
  await inParallel([...Array(Math.min(routers, networkIds.length)).keys()], 4, async (i) => {
    const body = await ok<{ router: { id: string } }>(
      admin.post('/v2.0/routers', { router: { name: `router-${i}` } }),
      'router',
    );
    await ok(
      admin.put(`/v2.0/routers/${body.router.id}/add_router_interface`, { subnet_id: subnetIds[i] }),
      'interface',
    );
    routerIds.push(body.router.id);
  });
  return { networkIds, portIds, routerIds };
}
