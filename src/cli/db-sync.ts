/**
 * `octonet db-sync`: brings the database's schema up to date and exits, as `neutron-db-manage
 * upgrade head` does for OpenStack-Helm's db-sync job. `serve` migrates at start too; the job lets a
 * deployment migrate once, before replicas of a new version start, and see a failure as a failed Job.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openStore } from '../store/database.js';
import { deploymentIdentity } from '../store/identity.js';

export function registerDbSyncCommand(program: Command): void {
  program
    .command('db-sync')
    .description("migrate the database to this version's schema and exit (OpenStack-Helm's db-sync job)")
    .option('--config <file>', 'YAML configuration file (default: $OCTONET_CONFIG)')
    .option('--database <url>', 'sqlite:PATH or postgres://... (default: the config, then $OCTONET_DATABASE)')
    .action(async (options: { config?: string; database?: string }) => {
      const config = loadConfig({ file: options.config, overrides: { database: options.database } });
      const store = await openStore(config.database, { connectTimeoutMs: config.database_connect_timeout * 1000 });
      try {
        // The identity is made by the migrations: printed so an operator can match it to an NB's mark.
        process.stdout.write(`database migrated; deployment identity ${await deploymentIdentity(store)}\n`);
      } finally {
        await store.close();
      }
    });
}
