/**
 * A small Neutron API client for the bench (octonet or the real Neutron, noauth: no identity
 * headers = admin of `fake_project_id`): keep-alive HTTP, the few calls the figures need, and
 * reading one counter from octonet's `/metrics`. Throws on an unexpected status, with the body.
 */
import { Agent, request as httpRequest } from 'node:http';

export interface Port {
  id: string;
  status: string;
  network_id: string;
  [key: string]: unknown;
}

export class NeutronApi {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });

  constructor(readonly baseUrl: string) {}

  /** One request; resolves with the status and the raw body. */
  raw(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        new URL(path, this.baseUrl),
        {
          method,
          agent: this.agent,
          headers: {
            accept: 'application/json',
            ...(payload !== undefined && {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(payload),
            }),
          },
          timeout: 120_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 120 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /**
   * A GET's status and how many bytes its body had, the body read and dropped as it arrives: a
   * latency figure then holds little of the client's own garbage collection.
   */
  drained(path: string): Promise<{ status: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        new URL(path, this.baseUrl),
        { agent: this.agent, headers: { accept: 'application/json' }, timeout: 120_000 },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer within 120 s`)));
      req.on('error', reject);
      req.end();
    });
  }

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const { status, text } = await this.raw(method, path, body);
    if (status < 200 || status >= 300) throw new Error(`${method} ${path}: HTTP ${status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** Unlimited networks, subnets and ports for `fake_project_id` (defaults would stop the bench). */
  async raiseQuotas(): Promise<void> {
    await this.call('PUT', '/v2.0/quotas/fake_project_id', { quota: { port: -1, network: -1, subnet: -1 } });
  }

  async createNetwork(name: string): Promise<string> {
    return (await this.call<{ network: { id: string } }>('POST', '/v2.0/networks', { network: { name } })).network.id;
  }

  async createSubnet(networkId: string, cidr: string): Promise<string> {
    const body = { subnet: { network_id: networkId, cidr, ip_version: 4, name: `bench-${cidr}` } };
    return (await this.call<{ subnet: { id: string } }>('POST', '/v2.0/subnets', body)).subnet.id;
  }

  async createPort(port: Record<string, unknown>): Promise<Port> {
    return (await this.call<{ port: Port }>('POST', '/v2.0/ports', { port })).port;
  }

  async createPorts(ports: Record<string, unknown>[]): Promise<Port[]> {
    return (await this.call<{ ports: Port[] }>('POST', '/v2.0/ports', { ports })).ports;
  }

  async getPort(id: string): Promise<Port> {
    return (await this.call<{ port: Port }>('GET', `/v2.0/ports/${id}`)).port;
  }

  async listPortIds(networkId: string): Promise<string[]> {
    const { ports } = await this.call<{ ports: { id: string }[] }>(
      'GET',
      `/v2.0/ports?network_id=${networkId}&fields=id`,
    );
    return ports.map((p) => p.id);
  }

  async delete(collection: string, id: string): Promise<void> {
    await this.call('DELETE', `/v2.0/${collection}/${id}`);
  }

  /** The sum over all label sets of one Prometheus metric; undefined when it is not exposed. */
  async metric(name: string): Promise<number | undefined> {
    const { status, text } = await this.raw('GET', '/metrics');
    if (status !== 200) return undefined;
    let sum: number | undefined;
    for (const line of text.split('\n')) {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
      if (match?.[1] === name) sum = (sum ?? 0) + Number(match[2]);
    }
    return sum;
  }

  close(): void {
    this.agent.destroy();
  }
}
