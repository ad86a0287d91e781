/**
 * A steady ICMP probe with timestamps: icmp-probe.py run inside a lab namespace (the outside, or a
 * VM) sends an echo request every 5 ms on a fixed schedule, and every echo reply is recorded with
 * the wall-clock time it arrived (epoch ms, the clock `Date.now()` reads), so a reply can be
 * compared with the moment an API call started. (ping(8) slows down while nothing answers, which
 * would blur the start of a reply stream and an outage.) Owns the probe process, nothing else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { deferUndo } from '../api/teardown.js';

/** 200 echo requests a second: 5 ms resolution for every figure (the brief asks ≥ 100/s). */
export const PROBE_INTERVAL_MS = 5;
const SCRIPT = fileURLToPath(new URL('./icmp-probe.py', import.meta.url));

export interface Reply {
  /** The request's number, from 1, one per PROBE_INTERVAL_MS. */
  seq: number;
  /** When the request was sent, epoch ms. */
  sentAt: number;
  /** When the reply arrived, epoch ms. */
  at: number;
}

const REPLY = /^reply (\d+) (\d+\.\d+) (\d+\.\d+)$/;

export class Prober {
  readonly replies: Reply[] = [];
  /** The last lines that were not replies (unreachable notices, errors), for a failure message. */
  private readonly other: string[] = [];
  private readonly child: ChildProcess;
  private exitedWith: string | undefined;
  readonly stop: () => Promise<void>;

  /** `place` is a namespace prefix such as `lab.outsideCommand([])`. */
  constructor(
    place: readonly string[],
    readonly target: string,
  ) {
    const argv = [...place, 'python3', SCRIPT, target, String(PROBE_INTERVAL_MS)];
    this.child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    const onData = (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.take(line);
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', (chunk: Buffer) => this.remember(chunk.toString().trim()));
    this.child.once('exit', (code, signal) => (this.exitedWith = `icmp-probe.py exited (${code ?? signal})`));
    const exited = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    this.stop = deferUndo(async () => {
      if (this.exitedWith === undefined) this.child.kill('SIGTERM');
      await exited;
    });
  }

  private take(line: string): void {
    const match = REPLY.exec(line);
    if (match) {
      this.replies.push({ seq: Number(match[1]), sentAt: Number(match[2]) * 1000, at: Number(match[3]) * 1000 });
    } else if (line.trim()) {
      this.remember(line.trim());
    }
  }

  private remember(line: string): void {
    if (!line) return;
    this.other.push(line);
    if (this.other.length > 5) this.other.shift();
  }

  private check(what: string, deadline: number): void {
    if (this.exitedWith) throw new Error(`${what}: ${this.exitedWith}: ${this.other.join(' | ')}`);
    if (Date.now() > deadline) {
      throw new Error(
        `${what}: gave up after ${this.replies.length} replies in all; it said: ${this.other.join(' | ')}`,
      );
    }
  }

  /** The first reply at or after `since` (epoch ms), waiting for it up to `timeoutMs`. */
  async firstReplyAfter(since: number, timeoutMs: number, what = `a reply from ${this.target}`): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    let from = 0;
    for (;;) {
      for (; from < this.replies.length; from++) if (this.replies[from]!.at >= since) return this.replies[from]!;
      this.check(what, deadline);
      await sleep(2);
    }
  }

  /** Resolves once no reply has come for `quietMs`; returns the last reply seen before (if any). */
  async waitQuiet(
    quietMs: number,
    timeoutMs: number,
    what = `replies from ${this.target} to stop`,
  ): Promise<Reply | undefined> {
    const deadline = Date.now() + timeoutMs;
    const startedAt = Date.now();
    for (;;) {
      const last = this.replies.at(-1);
      if (Date.now() - Math.max(last?.at ?? 0, startedAt) >= quietMs) return last;
      this.check(what, deadline);
      await sleep(10);
    }
  }

  /**
   * Resolves once replies have come without a gap over `maxGapMs` for `forMs`, counting only
   * replies at or after `since` (epoch ms).
   */
  async waitSteady(forMs: number, maxGapMs: number, timeoutMs: number, since = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = Date.now();
      const start = now - forMs;
      const recent = this.replies.filter((r) => r.at >= start);
      const times = [start, ...recent.map((r) => r.at), now];
      const steady = recent.length > 0 && times.every((t, i) => i === 0 || t - times[i - 1]! <= maxGapMs);
      if (steady && start >= since) return;
      this.check(`steady replies from ${this.target}`, deadline);
      await sleep(20);
    }
  }
}

/** The longest gap between consecutive replies that ends after `since`, with the replies around it. */
export function longestGap(
  replies: readonly Reply[],
  since: number,
): { gapMs: number; before: Reply; after: Reply } | undefined {
  let best: { gapMs: number; before: Reply; after: Reply } | undefined;
  for (let i = 1; i < replies.length; i++) {
    const before = replies[i - 1]!;
    const after = replies[i]!;
    if (after.at < since) continue;
    const gapMs = after.at - before.at;
    if (!best || gapMs > best.gapMs) best = { gapMs, before, after };
  }
  return best;
}
