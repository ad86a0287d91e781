/**
 * What must be undone when the bench ends or is interrupted: the octonet servers, PostgreSQL
 * clusters and driver processes this run started, each by its own id. Never the Neutron anchor,
 * which other people use.
 */
type Undo = () => void | Promise<void>;

const pending = new Set<Undo>();
let interrupted = false;

/** True once SIGINT/SIGTERM arrived: the run stops at the next step and reports nothing. */
export const wasInterrupted = () => interrupted;

/** Registers an undo step; the returned function runs it now (once) and unregisters it. */
export function deferUndo(undo: Undo): () => Promise<void> {
  pending.add(undo);
  return async () => {
    if (!pending.delete(undo)) return;
    await undo();
  };
}

/** Unregisters an undo step without running it (what it would undo has ended by itself). */
export function forgetUndo(undo: Undo): void {
  pending.delete(undo);
}

/** Sends SIGTERM to the process group a detached child leads (ours alone). */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGTERM'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** On SIGINT/SIGTERM: undo everything still pending, newest first, then exit. */
export function undoOnSignals(): void {
  let running = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (running) return;
      running = true;
      interrupted = true;
      process.stderr.write(`\nbench: ${signal}, stopping what this run started\n`);
      void (async () => {
        for (const undo of [...pending].reverse()) {
          pending.delete(undo);
          try {
            await undo();
          } catch (error) {
            process.stderr.write(`bench: cleanup failed: ${(error as Error).message}\n`);
          }
        }
        process.exit(130);
      })();
    });
  }
}
