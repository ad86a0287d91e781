/**
 * What `octonet --version` prints and `/readyz` reports: package.json's version and, where known,
 * the git commit it was built from. The commit comes from `build-info.json` beside package.json
 * (the Containerfile writes it from its `GIT_COMMIT` build argument), else from the checkout's git
 * (a development tree); a tree that has neither gives the version alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: `src/cli/` under tsx and `dist/cli/` when built are both two levels down. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function gitCommit(root: string): string | undefined {
  const fromBuild = readJson(`${root}build-info.json`)?.commit;
  if (typeof fromBuild === 'string' && /^[0-9a-f]{7,40}$/.test(fromBuild)) return fromBuild.slice(0, 12);
  if (!existsSync(`${root}.git`)) return undefined;
  try {
    return execFileSync('git', ['-C', dirname(`${root}.git`), 'rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined; // git not installed, or not a repository after all
  }
}

let cached: string | undefined;

/** e.g. `0.1.0 (commit 5ecbf5b1a2c3)`, or `0.1.0` when the commit is unknown. */
export function octonetVersion(): string {
  if (cached !== undefined) return cached;
  const version = readJson(`${PACKAGE_ROOT}package.json`)?.version;
  const commit = gitCommit(PACKAGE_ROOT);
  cached = `${typeof version === 'string' ? version : 'unknown'}${commit ? ` (commit ${commit})` : ''}`;
  return cached;
}
