/**
 * STAND-INS (not the real services) for the notifier tests: a Keystone token endpoint that issues
 * a token with a catalog naming the compute endpoint, and a Nova that records every POST to
 * `/v2.1/os-server-external-events` and answers as the test says (200 with per-event codes, 207,
 * 404, 500, or not at all until released). The real Nova runs in the nova-real tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedPost {
  /** When it arrived (`performance.now()`). */
  readonly at: number;
  readonly headers: IncomingMessage['headers'];
  readonly events: { name: string; server_uuid: string; tag: string; status?: string }[];
}

/** How the stand-in Nova answers one POST: a status and per-event codes, or a held answer. */
export type NovaAnswer = { status: number; codes?: number[] } | 'hold';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

export class StandInNova {
  readonly posts: RecordedPost[] = [];
  /** Answers for the next POSTs, in order; when empty, 200 with code 200 for every event. */
  readonly answers: NovaAnswer[] = [];
  private readonly held: ServerResponse[] = [];
  private readonly waiters: (() => void)[] = [];
  private server = createServer((req, res) => void this.handle(req, res));
  url = '';

  async start(): Promise<void> {
    this.url = await listen(this.server);
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Events of every POST so far, flattened. */
  get events(): RecordedPost['events'] {
    return this.posts.flatMap((p) => p.events);
  }

  /** Resolves once `predicate` holds (checked after every POST). */
  async until(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Answers the held POSTs 200. */
  release(): void {
    for (const res of this.held.splice(0)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ events: [] }));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v2.1/os-server-external-events') {
      res.writeHead(404).end();
      return;
    }
    const body = (await readJson(req)) as { events: RecordedPost['events'] };
    this.posts.push({ at: performance.now(), headers: req.headers, events: body.events });
    const answer = this.answers.shift() ?? { status: 200 };
    if (answer === 'hold') this.held.push(res);
    else {
      const events = body.events.map((e, i) => ({
        ...e,
        status: e.status ?? 'completed',
        code: answer.codes?.[i] ?? 200,
      }));
      res
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(answer.status === 200 || answer.status === 207 ? JSON.stringify({ events }) : '{"error": "stand-in"}');
    }
    for (const wake of this.waiters.splice(0)) wake();
  }
}

/** A stand-in Keystone: `POST /v3/auth/tokens` gives a token whose catalog points at `novaUrl`. */
export class StandInKeystone {
  readonly logins: { user: string; password: string; project: string }[] = [];
  private server = createServer((req, res) => void this.handle(req, res));
  url = '';

  constructor(private readonly novaUrl: () => string) {}

  async start(): Promise<void> {
    this.url = `${await listen(this.server)}/v3`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !req.url?.startsWith('/v3/auth/tokens')) {
      res.writeHead(404).end();
      return;
    }
    const body = (await readJson(req)) as {
      auth: {
        identity: { password: { user: { name: string; password: string } } };
        scope: { project: { name: string } };
      };
    };
    const user = body.auth.identity.password.user;
    this.logins.push({ user: user.name, password: user.password, project: body.auth.scope.project.name });
    const token = {
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      user: { id: 'nova-user-id', name: user.name },
      project: { id: 'service-project-id', name: body.auth.scope.project.name },
      roles: [{ name: 'admin' }],
      catalog: [
        {
          type: 'compute',
          endpoints: [
            { interface: 'internal', region: 'RegionOne', url: 'http://127.0.0.1:9/wrong-interface' },
            { interface: 'public', region: 'RegionTwo', url: 'http://127.0.0.1:9/wrong-region' },
            { interface: 'public', region: 'RegionOne', url: `${this.novaUrl()}/v2.1` },
          ],
        },
      ],
    };
    res.writeHead(201, { 'content-type': 'application/json', 'x-subject-token': 'stand-in-token' });
    res.end(JSON.stringify({ token }));
  }
}
