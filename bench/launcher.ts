/**
 * How the `octonet` launcher (and the image) start the server, for benches that spawn
 * `dist/cli/main.js` themselves: its Node flags and its glibc malloc settings (the launcher's
 * comments say why each is there). A bench that left them out measured another program: at
 * 100,000 ports the RSS after the OVN pass was 352–359 MiB without the malloc settings, 284–292
 * with them (bench/scale/README.md). test/deploy/containerfile.test.ts keeps these equal to the
 * launcher's and the image's.
 */
export const LAUNCHER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--enable-source-maps'];

export const LAUNCHER_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '32768',
  MALLOC_TRIM_THRESHOLD_: '131072',
};
