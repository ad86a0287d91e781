/**
 * `octonet lab`: the command-line face of src/lab (up, down, status, vm, node exec, outside).
 * Parses arguments, calls the lab API, prints; `exec` subcommands hand the terminal to the command
 * and pass its exit status through. Knows nothing of how the lab is built.
 */
import { spawn } from 'node:child_process';
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_LAB_NAME,
  LabUsageError,
  downLab,
  openLab,
  upLab,
  type LabDownReport,
  type LabStatus,
} from '../lab/index.js';

/** The lab a command acts on when none is named: `$OCTONET_LAB`, else `octonet`. */
function defaultLabName(): string {
  return process.env.OCTONET_LAB || DEFAULT_LAB_NAME;
}

/** Runs an action, turning lab errors into one line on stderr (exit 2 for usage, 1 otherwise). */
function guarded<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      process.stderr.write(`octonet lab: ${(error as Error).message}\n`);
      process.exitCode = error instanceof LabUsageError ? 2 : 1;
    }
  };
}

/** For option values: commander reports an InvalidArgumentError as a usage error. */
function parseCount(value: string): number {
  const count = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(count)) throw new InvalidArgumentError('not a whole number');
  return count;
}

/** The command after `--`: with passThroughOptions commander keeps the separator in the operands. */
function commandAfterSeparator(command: string[]): string[] {
  const rest = command[0] === '--' ? command.slice(1) : command;
  if (rest.length === 0) throw new LabUsageError('no command given (put it after --)');
  return rest;
}

/** Runs argv with the terminal attached; resolves with its exit status (128 + signal if killed). */
function runAttached(argv: string[]): Promise<number> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    const child = spawn(file!, args, { stdio: 'inherit' });
    // Ctrl-C reaches the child through the terminal; we stay to report its status.
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    process.on('SIGTERM', ignore);
    child.once('error', (error) => {
      process.stderr.write(`octonet lab: ${error.message}\n`);
      resolve(127);
    });
    child.once('close', (code, signal) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', ignore);
      const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
      resolve(code ?? 128 + (signal ? (numbers[signal] ?? 1) : 1));
    });
  });
}

function describeStatus(status: LabStatus): string {
  const lines = [
    `lab ${status.name}: ${status.state} (run dir ${status.runDir})`,
    `  NB: ${status.nb}`,
    `  SB: ${status.sb}   (nodes use ${status.central.sbRemote} in ${status.central.namespace})`,
    `  underlay: ${status.underlay.cidr} on ${status.underlay.bridge} in ${status.underlay.namespace}, MTU ${status.underlay.mtu}`,
    '  nodes:',
    ...status.nodes.map(
      (n) =>
        `    ${n.name.padEnd(7)} ${n.namespace}  vtep ${n.vtepIp}  ${n.bridgeMappings}` +
        `${n.gateway ? '  gateway' : ''}${n.running ? '' : '  DAEMONS NOT RUNNING'}`,
    ),
    `  outside: ${status.outside.namespace} ${status.outside.address} (${status.outside.cidr}) on ${status.outside.physnet}` +
      status.outside.vlans.map((v) => `, ${v.interface} ${v.addresses.join(' ')}`).join(''),
  ];
  if (status.bgp) {
    const bgp = status.bgp;
    lines.push(`  bgp: gateway ${bgp.gatewayIp} (VRRP on the cloudgws), MD5 password ${bgp.password}`);
    for (const m of [...bgp.cloudgws, bgp.core]) {
      lines.push(
        `    ${m.name.padEnd(9)} ${m.namespace}  AS ${m.asn}  ${m.addresses.join(' ')}${m.running ? '' : '  FRR NOT RUNNING'}`,
      );
    }
    for (const n of bgp.nodes)
      lines.push(`    ${n.name.padEnd(9)} ${n.address} ${n.address6}  vtysh --vty_socket ${n.frrDir}`);
  }
  if (status.vms.length) {
    lines.push('  vms:');
    for (const vm of status.vms) {
      lines.push(`    ${vm.name}  ${vm.node}  port ${vm.port}  ${vm.mac}  ${vm.addresses.join(' ') || '(no address)'}`);
    }
  }
  return lines.join('\n') + '\n';
}

function describeDown(report: LabDownReport): void {
  if (!report.existed) process.stdout.write(`lab ${report.name} was not up; nothing to remove\n`);
  else process.stdout.write(`lab ${report.name} removed (${report.namespacesDeleted.length} namespaces)\n`);
  if (report.killed.length) {
    process.stderr.write(`octonet lab: warning: pids ${report.killed.join(' ')} ignored SIGTERM and were killed\n`);
  }
  for (const stray of report.strays) {
    process.stderr.write(
      `octonet lab: warning: pid ${stray.pid} still mentions the run dir (not killed): ${stray.commandLine}\n`,
    );
  }
}

function labOption(): Option {
  return new Option('--lab <name>', 'the lab (default: $OCTONET_LAB or octonet)');
}

export function registerLabCommand(program: Command): void {
  const lab = program
    .command('lab')
    .description('OVN central and N OVN nodes in network namespaces on this machine, with real packets (root)')
    .enablePositionalOptions();

  lab
    .command('up')
    .description('start OVN central, the underlay, N nodes and the outside namespace')
    .option('--nodes <n>', 'number of nodes, node1..nodeN', parseCount, 2)
    .option('--name <name>', 'lab name; namespaces and the run dir derive from it (default: $OCTONET_LAB or octonet)')
    .option('--gateways <nodes>', 'nodes with enable-chassis-as-gw, e.g. node1,node2 (default: all)')
    .option('--underlay-mtu <mtu>', 'MTU of the underlay (1500 carries the 1442 tenant MTU)', parseCount)
    .option('--bgp', 'add two cloudgws and a core running FRR (eBGP to every node), and FRR on every node')
    .option('--cluster', 'run NB and SB as 3-member RAFT clusters and two ovn-northd (active/standby)')
    .option('--json', 'print the status as JSON')
    .action(
      guarded(
        async (options: {
          nodes: number;
          name?: string;
          gateways?: string;
          underlayMtu?: number;
          bgp?: boolean;
          cluster?: boolean;
          json?: boolean;
        }) => {
          const started = await upLab({
            name: options.name ?? defaultLabName(),
            nodes: options.nodes,
            gateways: options.gateways?.split(','),
            underlayMtu: options.underlayMtu,
            bgp: options.bgp,
            cluster: options.cluster,
            progress: options.json ? undefined : (line) => process.stderr.write(`  ${line}\n`),
          });
          const status = await started.status();
          if (options.json) process.stdout.write(JSON.stringify(status, null, 2) + '\n');
          else process.stdout.write(describeStatus(status) + `\ntry: ovn-nbctl --db=${status.nb} show\n`);
        },
      ),
    );

  lab
    .command('down')
    .description('stop and remove everything the lab made (idempotent)')
    .option('--name <name>', 'lab name (default: $OCTONET_LAB or octonet)')
    .action(
      guarded(async (options: { name?: string }) => {
        describeDown(await downLab({ name: options.name ?? defaultLabName() }));
      }),
    );

  lab
    .command('status')
    .description('show the lab: NB/SB connection strings, nodes, outside, VMs')
    .option('--name <name>', 'lab name (default: $OCTONET_LAB or octonet)')
    .option('--json', 'print JSON')
    .action(
      guarded(async (options: { name?: string; json?: boolean }) => {
        const status = await openLab({ name: options.name ?? defaultLabName() }).status();
        process.stdout.write(options.json ? JSON.stringify(status, null, 2) + '\n' : describeStatus(status));
      }),
    );

  const vm = lab.command('vm').description('workload namespaces plugged into Neutron ports').enablePositionalOptions();
  vm.command('create')
    .description('plug a VM into a port on a node (as Nova/os-vif would) and get its address by DHCP; prints its name')
    .requiredOption('--node <node>', 'node1..nodeN')
    .requiredOption('--port <port-id>', 'the Neutron port id (Logical_Switch_Port name)')
    .option('--mac <mac>', "the port's MAC (default: read from the NB)")
    .option('--name <name>', 'VM name (default: vm- + the first 8 characters of the port id)')
    .option('--no-dhcp', 'leave eth0 without an address')
    .option('--mtu <mtu>', "eth0's MTU until DHCP sets one (default 1500)", parseCount)
    .addOption(labOption())
    .action(
      guarded(
        async (options: {
          node: string;
          port: string;
          mac?: string;
          name?: string;
          dhcp: boolean;
          mtu?: number;
          lab?: string;
        }) => {
          const created = await openLab({ name: options.lab ?? defaultLabName() }).createVm({
            node: options.node,
            port: options.port,
            mac: options.mac,
            name: options.name,
            dhcp: options.dhcp,
            mtu: options.mtu,
          });
          process.stdout.write(`${created.name}\n`);
        },
      ),
    );
  vm.command('delete <name>')
    .description('unplug a VM: delete its OVS port, stop what runs in it, delete its namespace')
    .addOption(labOption())
    .action(
      guarded(async (name: string, options: { lab?: string }) => {
        await openLab({ name: options.lab ?? defaultLabName() }).deleteVm(name);
      }),
    );
  vm.command('exec <name> <command...>')
    .description('run a command inside the VM (use -- before the command); exits with its status')
    .addOption(labOption())
    .passThroughOptions()
    .action(
      guarded(async (name: string, command: string[], options: { lab?: string }) => {
        process.exitCode = await runAttached(
          openLab({ name: options.lab ?? defaultLabName() }).vmCommand(name, commandAfterSeparator(command)),
        );
      }),
    );

  const node = lab.command('node').description("the nodes' namespaces").enablePositionalOptions();
  node
    .command('exec <node> <command...>')
    .description('run a command in the node namespace with OVS_RUNDIR etc. set (ovs-vsctl, ovs-appctl, ovs-ofctl work)')
    .addOption(labOption())
    .passThroughOptions()
    .action(
      guarded(async (nodeName: string, command: string[], options: { lab?: string }) => {
        const argv = openLab({ name: options.lab ?? defaultLabName() }).nodeCommand(
          nodeName,
          commandAfterSeparator(command),
        );
        process.exitCode = await runAttached(argv);
      }),
    );

  const outside = lab
    .command('outside')
    .description('the host outside the cloud, on physnet1')
    .enablePositionalOptions();
  outside
    .command('exec <command...>')
    .description('run a command in the outside namespace')
    .addOption(labOption())
    .passThroughOptions()
    .action(
      guarded(async (command: string[], options: { lab?: string }) => {
        process.exitCode = await runAttached(
          openLab({ name: options.lab ?? defaultLabName() }).outsideCommand(commandAfterSeparator(command)),
        );
      }),
    );
  outside
    .command('vlan <vlan>')
    .description('give the outside namespace eth0.<vlan>, carrying that VLAN of physnet1 untagged; prints its name')
    .option('--address <cidr>', 'an address for it, e.g. 10.100.0.100/24')
    .addOption(labOption())
    .action(
      guarded(async (vlan: string, options: { address?: string; lab?: string }) => {
        if (!/^[0-9]+$/.test(vlan)) throw new LabUsageError(`VLAN ${JSON.stringify(vlan)} is not a number`);
        const name = await openLab({ name: options.lab ?? defaultLabName() }).addOutsideVlan(
          Number(vlan),
          options.address,
        );
        process.stdout.write(`${name}\n`);
      }),
    );
}
