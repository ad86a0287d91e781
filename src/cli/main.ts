#!/usr/bin/env node
/**
 * The `octonet` command. Without arguments it runs the demo; `serve` runs the API.
 * This module only parses arguments and hands a validated config to the pieces it starts.
 */
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../config/config.js';
import { UnsupportedDatabaseUrl } from '../store/database.js';
import { runDemo } from './demo.js';
import { registerBgpAgentCommand } from './bgp-agent.js';
import { registerDbSyncCommand } from './db-sync.js';
import { registerImportCommand } from './import.js';
import { registerLabCommand } from './lab.js';
import { registerMgmtNetCommand } from './mgmt-net.js';
import { registerNodeAgentCommand } from './node-agent.js';
import { registerOperatorCommand } from './operator.js';
import { createLogger, logNeutronConfig, readNeutronConfig, startServer } from './serve.js';
import { octonetVersion } from './version.js';

/** Commander's way to take a flag more than once. */
const repeatable = (value: string, previous: string[] = []) => [...previous, value];

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void stop().then(() => process.exit(0));
    });
  }
}

const program = new Command('octonet')
  .description('A Neutron-compatible network control plane on OVN, for Octavia load balancers')
  .showHelpAfterError()
  // Not commander's `.version()`: that wants the string up front, and finding the commit runs git.
  .option('-V, --version', 'print the version (and the git commit it was built from) and exit')
  .on('option:version', () => {
    process.stdout.write(`octonet ${octonetVersion()}\n`);
    process.exit(0);
  });

program
  .command('serve')
  .description('serve the OpenStack Networking v2.0 API')
  .option('--config <file>', 'YAML configuration file (default: $OCTONET_CONFIG)')
  .option(
    '--config-file <file>',
    'a Neutron INI file (neutron.conf, ml2_conf.ini); repeatable, later ones win',
    repeatable,
  )
  .option(
    '--config-dir <dir>',
    'a directory of Neutron INI files (*.conf, sorted), read after the files; repeatable',
    repeatable,
  )
  .option('--policy-file <file>', 'oslo.policy overrides (policy.yaml); default: [oslo_policy] policy_file')
  .option('--listen <host:port>', 'address to listen on (default 127.0.0.1:9696)')
  .option('--database <url>', 'sqlite:PATH or postgres://user:password@host:port/db (default: sqlite in the state dir)')
  .option('--state-dir <dir>', 'directory for octonet state (default /var/lib/octonet as root)')
  .addOption(new Option('--auth <mode>', 'how callers are identified (default noauth)').choices(['noauth', 'keystone']))
  .option(
    '--insecure-noauth',
    'allow --auth noauth on a non-loopback address (a proxy in front must set the identity headers)',
  )
  .option('--keystone-url <url>', 'auth keystone: Keystone v3 root, e.g. http://keystone:5000/v3')
  .option('--keystone-user <name>', 'auth keystone: the service user that validates tokens')
  .option('--keystone-password-file <file>', "auth keystone: a file holding the service user's password")
  .option('--keystone-project <name>', "auth keystone: the service user's project, e.g. service")
  .option('--keystone-user-domain <id>', "auth keystone: ID of the service user's domain (default: default)")
  .option('--keystone-project-domain <id>', "auth keystone: ID of the service project's domain (default: default)")
  .option('--log-level <level>', 'fatal, error, warn, info, debug or trace')
  .option('--ovn-nb <remote>', 'OVN northbound database, e.g. unix:/run/ovn/ovnnb_db.sock (default: no OVN)')
  .option('--ovn-sb <remote>', 'OVN southbound database, e.g. tcp:10.0.0.2:6642')
  .option(
    '--ovn-nb-takeover',
    'take over an NB another octonet deployment marked as its own (one deliberate start only)',
  )
  .action(async (options: Record<string, string | string[] | boolean | undefined>) => {
    const neutronFiles = (options.configFile as string[] | undefined) ?? [];
    const neutronDirs = (options.configDir as string[] | undefined) ?? [];
    const neutron =
      neutronFiles.length || neutronDirs.length ? readNeutronConfig(neutronFiles, neutronDirs) : undefined;
    const yamlOverridden: string[] = [];
    const config = loadConfig({
      file: options.config as string | undefined,
      neutron: neutron?.values,
      onYamlOverridden: (key) => yamlOverridden.push(key),
      overrides: {
        policy_file: options.policyFile,
        listen: options.listen,
        database: options.database,
        state_dir: options.stateDir,
        auth: options.auth,
        insecure_noauth: options.insecureNoauth,
        keystone: {
          url: options.keystoneUrl,
          user: options.keystoneUser,
          password_file: options.keystonePasswordFile,
          project: options.keystoneProject,
          user_domain: options.keystoneUserDomain,
          project_domain: options.keystoneProjectDomain,
        },
        log_level: options.logLevel,
        ovn: { nb_connection: options.ovnNb, sb_connection: options.ovnSb, nb_takeover: options.ovnNbTakeover },
      },
    });
    const logger = createLogger(config);
    if (neutron) logNeutronConfig(logger, neutron, yamlOverridden);
    const server = await startServer(config, logger, [], { compactAfterStart: true });
    onSignals(async () => {
      logger.info('stopping');
      await server.close();
    });
  });

program
  .command('demo', { isDefault: true })
  .description('start the API on a throw-away SQLite database and show what to try (the default)')
  .option('--listen <host:port>', 'address to listen on', '127.0.0.1:9696')
  .action(async (options: { listen: string }) => {
    const demo = await runDemo(options.listen);
    onSignals(demo.stop);
  });

registerBgpAgentCommand(program);
registerDbSyncCommand(program);
registerImportCommand(program);
registerLabCommand(program);
registerMgmtNetCommand(program);
registerNodeAgentCommand(program);
registerOperatorCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UnsupportedDatabaseUrl) {
    process.stderr.write(`octonet: ${error.message}\n`);
    process.exit(2);
  }
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') {
    process.stderr.write(`octonet: cannot listen: address already in use (${(error as Error).message})\n`);
    process.exit(2);
  }
  process.stderr.write(`octonet: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
