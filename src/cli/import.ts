/**
 * `octonet import --from <Neutron's [database] connection URL>`: reads a Neutron (Zed or later)
 * database and writes the cloud into octonet's database, ids, revisions and timestamps unchanged
 * (see src/import/ and docs/moving-from-neutron.md).
 */
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { importNeutron } from '../import/import.js';
import { describeSkipped } from '../import/refusals.js';
import { UnsupportedSourceUrl } from '../import/source.js';
import { ImportRefused } from '../import/writer.js';
import { openStore } from '../store/database.js';

interface ImportFlags {
  from: string;
  config?: string;
  database?: string;
  skipUnsupported?: boolean;
  replace?: boolean;
  dryRun?: boolean;
}

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description("read a Neutron database (its [database] connection URL) into octonet's")
    .requiredOption(
      '--from <url>',
      'the Neutron database: postgresql://... or mysql+pymysql://... (as neutron.conf has it)',
    )
    .option('--config <file>', 'YAML configuration file (default: $OCTONET_CONFIG)')
    .option('--database <url>', "octonet's database: sqlite:PATH or postgres://... (default: the config)")
    .option(
      '--skip-unsupported',
      'leave out what octonet cannot carry (or carry it plainly, saying what is dropped) instead of refusing',
    )
    .option('--replace', 'overwrite a target database that already holds something else')
    .option('--dry-run', 'read, check and map the source, but write nothing')
    .action(async (options: ImportFlags) => {
      const config = loadConfig({ file: options.config, overrides: { database: options.database } });
      const store = await openStore(config.database, { connectTimeoutMs: config.database_connect_timeout * 1000 });
      try {
        const report = await importNeutron(options.from, store, options);
        if (report.skipped.length > 0) {
          process.stdout.write(
            `not carried as Neutron has them (--skip-unsupported):\n${describeSkipped(report.skipped)}\n`,
          );
        }
        const counts = Object.entries(report.counts)
          .filter(([, n]) => n > 0)
          .map(([table, n]) => `${table} ${n}`)
          .join(', ');
        process.stdout.write(`${report.outcome}: ${counts || 'nothing'}\n`);
      } catch (error) {
        if (error instanceof ImportRefused || error instanceof UnsupportedSourceUrl) {
          process.stderr.write(`octonet import: ${error.message}\n`);
          process.exitCode = 3;
          return;
        }
        throw error;
      } finally {
        await store.close();
      }
    });
}
