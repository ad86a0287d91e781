/**
 * The Containerfile without building it (its base image comes from a registry this machine does
 * not reach): what it copies exists, it runs what tsconfig.build.json builds, and its run stage
 * installs the Debian package of every command the node agent runs (asked of dpkg's file lists:
 * this machine is Debian, as the image is).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LAUNCHER_ENV, LAUNCHER_NODE_FLAGS } from '../../bench/launcher.js';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Debian's package manager, asked which package ships a file. */
const DPKG_COMMAND = 'dpkg';
/** What the node agent runs on a node (src/mgmtnet/node-agent): each must be in the image. */
const NODE_AGENT_COMMANDS = ['ovs-vsctl', 'ovsdb-client', 'ip', 'ping', 'sysctl'];

describe('the Containerfile', () => {
  it('the Containerfile copies what exists and runs the build tsconfig.build.json makes', () => {
    // No image is built here (its base image comes from a registry this machine does not reach).
    const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
    const sources = [...containerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(' '));
    assert.ok(sources.includes('src') && sources.includes('package-lock.json') && sources.includes('src/web/assets'));
    for (const source of sources) assert.ok(existsSync(join(ROOT, source)), `COPY ${source}`);
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { outDir: string };
    };
    assert.match(containerfile, new RegExp(`/opt/octonet/${build.compilerOptions.outDir}/cli/main\\.js`));
    // The commit `octonet --version` reads (src/cli/version.ts) is written where it looks for it.
    assert.match(containerfile, /> build-info\.json/);
    assert.match(readFileSync(join(ROOT, 'src/cli/version.ts'), 'utf8'), /build-info\.json/);
    assert.match(containerfile, /^FROM docker\.io\/library\/node:20-bookworm-slim$/m);
  });

  it('the launcher, the image and the benches start the server with the same flags and malloc settings', () => {
    const launcher = readFileSync(join(ROOT, 'octonet'), 'utf8');
    const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
    const flags = LAUNCHER_NODE_FLAGS.join(' ');
    assert.match(launcher, new RegExp(`^exec node ${flags} "\\$here/dist/cli/main\\.js"`, 'm'));
    assert.ok(containerfile.includes(`exec node ${flags} /opt/octonet/dist/cli/main.js`));
    for (const [name, value] of Object.entries(LAUNCHER_ENV)) {
      assert.ok(launcher.includes(`export ${name}="\${${name}:-${value}}"`), `launcher ${name}`);
      assert.match(containerfile, new RegExp(`\\b${name}=${value}\\b`), `Containerfile ${name}`);
    }
  });

  it('the image installs the Debian package of every command the node agent runs', () => {
    // The run stage's packages (the last `apt-get install` line).
    const containerfile = readFileSync(join(ROOT, 'Containerfile'), 'utf8');
    const installs = [...containerfile.matchAll(/apt-get install -y --no-install-recommends ([^\\\n]+)/g)];
    const installed = new Set(installs.at(-1)![1]!.trim().split(/\s+/));
    const agent = join(ROOT, 'src/mgmtnet/node-agent');
    const code = readdirSync(agent)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(agent, f), 'utf8'))
      .join('\n');
    for (const command of NODE_AGENT_COMMANDS) {
      assert.ok(code.includes(`'${command}'`), `the node agent runs ${command}`);
      // Which Debian package ships it, by dpkg's file lists (this machine is Debian, as the image).
      const owners = execFileSync(DPKG_COMMAND, ['-S', `*bin/${command}`], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.endsWith(`bin/${command}`))
        .flatMap((line) => line.split(': ')[0]!.split(', '));
      assert.ok(owners.length > 0, `a package ships ${command}`);
      assert.ok(
        owners.some((p) => installed.has(p.replace(/:.*$/, ''))),
        `${command} (${owners.join(', ')}) is installed by the Containerfile`,
      );
    }
  });
});
