/**
 * When an amphora announced the VIP: tcpdump in its namespace prints every gratuitous ARP for the
 * VIP (keepalived sends requests "who-has VIP tell VIP") with its epoch timestamp, the clock the
 * probe and `Date.now()` use. Owns the tcpdump process, nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export class GarpWatch {
  /** Epoch ms of every gratuitous ARP for the VIP seen on the amphora's eth0. */
  readonly times: number[] = [];
  private child: ChildProcess | undefined;
  private output = '';

  constructor(
    private readonly place: readonly string[],
    private readonly vip: string,
  ) {}

  async start(): Promise<void> {
    if (this.child) return;
    const argv = [...this.place, 'tcpdump', '-tt', '-l', '-n', '-i', 'eth0', 'arp'];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let partial = '';
    // "ARP, Request who-has VIP (ff:ff:ff:ff:ff:ff) tell VIP, length 28": the target MAC may be shown.
    const vip = this.vip.replace(/\./g, '\\.');
    const garp = new RegExp(`^(\\d+\\.\\d+) .*Request who-has ${vip} .*tell ${vip},`);
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const match = garp.exec(line);
        if (match) this.times.push(Number(match[1]) * 1000);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    const deadline = Date.now() + 10_000;
    while (!this.output.includes('listening on')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tcpdump did not start: ${this.output}`);
      await sleep(10);
    }
  }

  /** The first gratuitous ARP at or after `since` (epoch ms). */
  firstAfter(since: number): number | undefined {
    return this.times.find((t) => t >= since);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
}
