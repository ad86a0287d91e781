/**
 * `serve --auth noauth` trusts the caller's headers, and a caller without them is admin: on an
 * address other machines can reach it refuses to start unless `--insecure-noauth` (or the config
 * key `insecure_noauth: true`) says it is meant, and it warns in the log whenever noauth is on.
 * Real `octonet serve` processes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../fixtures/postgres.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A hang guard only: how long a process may take to start or to exit. */
const GIVE_UP_MS = 60_000;

interface Outcome {
  /** The exit code, or null when it was still serving (then stopped by the test). */
  code: number | null;
  /** Whether GET / answered 200 on the port. */
  served: boolean;
  output: string;
}

/** Runs `octonet serve` with `args`; stops it once it answers or once it exits on its own. */
async function serve(dir: string, args: string[], port: number): Promise<Outcome> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), 'serve', '--state-dir', dir, ...args],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  const giveUpAt = Date.now() + GIVE_UP_MS;
  let served = false;
  while (code === undefined && !served && Date.now() < giveUpAt) {
    served = await fetch(`http://127.0.0.1:${port}/`).then(
      (r) => r.ok,
      () => false,
    );
    if (!served) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (code === undefined) {
    child.kill('SIGTERM');
    await exited;
    return { code: null, served, output };
  }
  return { code, served, output };
}

describe('noauth on a reachable address', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'octonet-noauth-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const database = (name: string) => ['--database', `sqlite:${join(dir, `${name}.db`)}`];

  it('refuses to start on 0.0.0.0 without --insecure-noauth, and says how to fix it', async () => {
    const port = await freePort();
    const outcome = await serve(dir, ['--listen', `0.0.0.0:${port}`, ...database('refused')], port);
    assert.equal(outcome.code, 2, outcome.output);
    assert.equal(outcome.served, false);
    assert.match(outcome.output, /refusing --auth noauth on 0\.0\.0\.0:\d+/);
    assert.match(outcome.output, /--insecure-noauth/);
    assert.match(outcome.output, /--auth keystone/);
  });

  it('starts on 0.0.0.0 with --insecure-noauth or insecure_noauth: true, with a warning', async () => {
    const port = await freePort();
    const flagged = await serve(dir, ['--listen', `0.0.0.0:${port}`, '--insecure-noauth', ...database('flag')], port);
    assert.equal(flagged.served, true, flagged.output);
    assert.match(flagged.output, /"level":40.*INSECURE: auth noauth on a non-loopback address/);

    const file = join(dir, 'octonet.yaml');
    writeFileSync(file, 'insecure_noauth: true\n');
    const port2 = await freePort();
    const keyed = await serve(dir, ['--config', file, '--listen', `0.0.0.0:${port2}`, ...database('key')], port2);
    assert.equal(keyed.served, true, keyed.output);
    assert.match(keyed.output, /INSECURE: auth noauth/);
  });

  it('starts on loopback without the flag, still warning that headers are trusted', async () => {
    const port = await freePort();
    const outcome = await serve(dir, ['--listen', `127.0.0.1:${port}`, ...database('loopback')], port);
    assert.equal(outcome.served, true, outcome.output);
    assert.match(outcome.output, /"level":40.*auth noauth: callers are trusted from their X-Project-Id/);
    assert.doesNotMatch(outcome.output, /INSECURE/);
  });
});
