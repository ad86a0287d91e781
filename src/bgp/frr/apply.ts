/**
 * Applying a rendered FRR configuration to a running FRR without dropping its sessions.
 *
 * Two ways, chosen per change:
 * - the fast path: when the only differences from what was applied last are prefix-list entries,
 *   `network` lines and next-hop entries of the export route-map (a floating IP came or went, a
 *   gateway moved, a router got its first announced prefix), the few commands of the delta
 *   straight to bgpd's vty socket (`vty.ts`; milliseconds, where starting vtysh costs 120–200 ms)
 *   in one configuration session (`asOneTransaction`), whose filter entries are committed at its
 *   end: a new prefix waits for its entry and a withdrawn one is gone before its entry goes, so
 *   nothing leaves unfiltered even for a moment;
 * - otherwise, and on every periodic full pass, Debian's `frr-reload.py --reload`, which diffs
 *   the file against `show running-config` and applies only the difference (about 0.4 s).
 * FRR is reached over its vty sockets in `vtyDir`; unix sockets work across network namespaces.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vtyRun, withoutSecrets } from './vty.js';

export const FRR_RELOAD = '/usr/lib/frr/frr-reload.py';

export interface FrrTarget {
  /** The directory of the daemons' `*.vty` sockets (their `--vty_socket`). */
  readonly vtyDir: string;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCommand(argv: readonly string[], timeoutMs = 30_000): Promise<CommandResult> {
  const [file, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}

/** `vtysh --vty_socket DIR -c ...`; throws when vtysh fails. */
export async function vtysh(target: FrrTarget, commands: readonly string[]): Promise<string> {
  const argv = ['vtysh', '--vty_socket', target.vtyDir, ...commands.flatMap((c) => ['-c', c])];
  const result = await runCommand(argv);
  if (result.code !== 0) {
    throw new Error(withoutSecrets(`vtysh failed (${result.code}): ${(result.stderr || result.stdout).trim()}`));
  }
  return result.stdout;
}

interface Section {
  /** The context line (`router bgp 64999`, ` address-family ipv4 unicast`), or '' for top level. */
  readonly context: string[];
  readonly line: string;
}

/** Every line with the context lines it sits in, by indentation (as FRR writes its config). */
function linesWithContext(text: string): Section[] {
  const result: Section[] = [];
  const stack: string[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim() || raw.trim() === '!' || /^\s*(exit|exit-address-family)$/.test(raw)) continue;
    const depth = raw.length - raw.trimStart().length;
    stack.length = Math.min(stack.length, depth);
    result.push({ context: [...stack], line: raw.trim() });
    stack[depth] = raw.trim();
  }
  return result;
}

const key = (s: Section) => [...s.context, s.line].join(' / ');
const isPrefixListEntry = (s: Section) => s.context.length === 0 && /^ipv?6? ?prefix-list /.test(s.line);
const isNetwork = (s: Section) => /^network /.test(s.line) && s.context.length === 2;
const isExportMapHead = (s: Section) =>
  s.context.length === 0 && /^route-map OCTONET-EXPORT-V[46] permit \d+$/.test(s.line);
const isExportMapPart = (s: Section) =>
  isExportMapHead(s) || (s.context.length === 1 && /^route-map OCTONET-EXPORT-V[46] permit \d+$/.test(s.context[0]!));

export interface FastPathPlan {
  readonly commands: string[];
}

/**
 * The vtysh commands that turn `before` into `after` when they differ only in prefix-list entries,
 * `network` lines and whole next-hop entries of the export route-map; undefined when anything else
 * differs (then a full reload is needed).
 */
export function planFastPath(before: string, after: string): FastPathPlan | undefined {
  const old = new Map(linesWithContext(before).map((s) => [key(s), s]));
  const now = new Map(linesWithContext(after).map((s) => [key(s), s]));
  const removed = [...old.entries()].filter(([k]) => !now.has(k)).map(([, s]) => s);
  const added = [...now.entries()].filter(([k]) => !old.has(k)).map(([, s]) => s);
  const simple = (s: Section) => isPrefixListEntry(s) || isNetwork(s) || isExportMapPart(s);
  if (![...removed, ...added].every(simple)) return undefined;
  // A next hop's route-map entry comes and goes whole (its head with its match and set lines).
  const heads = (sections: Section[]) => sections.filter((s) => isExportMapHead(s)).map((s) => s.line);
  const addedHeads = heads(added);
  const removedHeads = heads(removed);
  const whole = (sections: Section[], headsOf: string[]) =>
    sections.filter(isExportMapPart).every((s) => headsOf.includes(s.context.length ? s.context[0]! : s.line));
  if (!whole(added, addedHeads) || !whole(removed, removedHeads)) return undefined;
  // A removed "deny any" placeholder must go after the first permit is in, or the list briefly empties; fine either way.
  const commands: string[] = ['configure terminal'];
  for (const s of added.filter(isPrefixListEntry)) commands.push(s.line);
  const inContext = (sections: Section[], negate: boolean) => {
    const byContext = new Map<string, Section[]>();
    for (const s of sections) byContext.set(s.context.join('\n'), [...(byContext.get(s.context.join('\n')) ?? []), s]);
    for (const group of byContext.values()) {
      commands.push(...group[0]!.context);
      commands.push(...group.map((s) => (negate ? `no ${s.line}` : s.line)));
      commands.push('end', 'configure terminal');
    }
  };
  for (const head of addedHeads) {
    commands.push(head, ...added.filter((s) => s.context[0] === head).map((s) => s.line), 'exit');
  }
  inContext(removed.filter(isNetwork), true);
  inContext(added.filter(isNetwork), false);
  for (const head of removedHeads) commands.push(`no ${head}`);
  for (const s of removed.filter(isPrefixListEntry)) commands.push(`no ${s.line}`);
  commands.push('end');
  return { commands: commands.length > 2 ? commands : [] };
}

/** The lines of a fast-path plan that zebra has too: prefix-list entries and route-map entries. */
export function zebraCopy(commands: readonly string[]): string[] {
  const copy: string[] = [];
  let inRouteMap = false;
  for (const command of commands) {
    if (/^(no )?ipv?6? ?prefix-list /.test(command) || /^no route-map /.test(command)) copy.push(command);
    else if (/^route-map /.test(command)) {
      inRouteMap = true;
      copy.push(command);
    } else if (command === 'exit' && inRouteMap) {
      inRouteMap = false;
      copy.push(command);
    } else if (inRouteMap || command === 'end' || command === 'configure terminal') copy.push(command);
  }
  return copy;
}

/**
 * A plan's commands as `vtysh -f` sends a file: one configuration session between
 * `XFRR_start_configuration` and `XFRR_end_configuration`, so the daemon commits the northbound
 * changes (prefix-list and route-map entries) once at the end instead of once per line; per line,
 * each commit walks the whole configuration (about 95 ms a prefix with 600 in the lists). Context
 * lines stay: a daemon runs a line its node does not know in the parent node, as for a file. The
 * `network` lines apply at once and the filter entries at the end, so a new prefix waits for its
 * filter entry and a withdrawn one is gone before its entry goes: nothing leaves unfiltered.
 */
export function asOneTransaction(commands: readonly string[]): string[] {
  const body = commands.filter((c) => c !== 'configure terminal' && c !== 'end');
  return ['configure terminal', 'XFRR_start_configuration', ...body, 'XFRR_end_configuration', 'end'];
}

export type ApplyMode = 'unchanged' | 'fast' | 'reload';

/** Remembers what it applied last, to choose between the fast path and a full reload. */
export class FrrApplier {
  private applied: string | undefined;

  constructor(
    private readonly target: FrrTarget,
    /** Where the rendered file is written for frr-reload.py (the agent's state dir). */
    private readonly stateDir: string,
  ) {}

  async apply(config: string, options: { full?: boolean } = {}): Promise<ApplyMode> {
    try {
      return await this.applyOnce(config, options);
    } catch (error) {
      // What FRR holds now is unknown: the next apply reloads in full.
      this.applied = undefined;
      throw error;
    }
  }

  private async applyOnce(config: string, options: { full?: boolean }): Promise<ApplyMode> {
    if (this.applied !== undefined) {
      // A full pass first checks that FRR still runs what was applied (a restarted FRR has lost it).
      const intact = !options.full || (await this.runningMatches(this.applied));
      if (intact && this.applied === config) return 'unchanged';
      const plan = intact ? planFastPath(this.applied, config) : undefined;
      if (plan) {
        if (plan.commands.length) await this.batch(plan.commands);
        this.applied = config;
        return 'fast';
      }
    }
    await this.reload(config);
    this.applied = config;
    return 'reload';
  }

  /**
   * Every line of `config` is in FRR's running configuration. A linear check: frr-reload.py's own
   * diff grows with the square of the configuration (84 s for 1,000 prefixes here), too slow to
   * run on a timer when nothing changed.
   */
  private async runningMatches(config: string): Promise<boolean> {
    const running = new Set(linesWithContext(await vtysh(this.target, ['show running-config'])).map(key));
    return linesWithContext(config)
      .filter((s) => s.line !== 'frr defaults traditional')
      .every((s) => running.has(key(s)));
  }

  /**
   * The fast path's commands straight to bgpd's vty socket (`vty.ts`): no vtysh process, a few
   * milliseconds. vtysh would also hand the prefix-list and route-map lines to zebra, which keeps
   * a copy it never uses; zebra gets them too so `show running-config` and frr-reload.py see the
   * same thing either way, and what zebra refuses there (a bgpd-only `set`) is left out, as vtysh
   * leaves it out.
   */
  private async batch(commands: readonly string[]): Promise<void> {
    const { vtyDir } = this.target;
    await Promise.all([
      vtyRun(vtyDir, 'bgpd', asOneTransaction(commands), { timeoutMs: 120_000 }),
      vtyRun(vtyDir, 'zebra', asOneTransaction(zebraCopy(commands)), { timeoutMs: 120_000, tolerate: () => true }),
    ]);
  }

  private async reload(config: string): Promise<void> {
    const file = join(this.stateDir, 'octonet-bgp.conf');
    writeFileSync(file, config);
    // frr-reload.py reads vtysh.conf from --confdir; an empty one is enough.
    writeFileSync(join(this.stateDir, 'vtysh.conf'), '');
    const dirs = ['--vty_socket', this.target.vtyDir, '--confdir', this.stateDir, '--rundir', this.stateDir];
    const result = await runCommand([FRR_RELOAD, '--reload', ...dirs, file], 120_000);
    if (result.code !== 0) {
      const said = (result.stderr || result.stdout).trim().slice(-2000);
      throw new Error(withoutSecrets(`frr-reload.py failed (${result.code}): ${said}`));
    }
  }
}
