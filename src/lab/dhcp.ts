/**
 * A VM's address by OVN's native DHCP: busybox udhcpc, run once in the foreground inside the VM's
 * namespace, with our own hook script. The hook applies the lease to the VM's interface the way a
 * cloud image's client would (address and prefix, MTU from option 26, the default router of
 * option 3, the classless static routes of option 121) and touches nothing else: `ip netns exec` does not
 * isolate /etc/resolv.conf, so a stock hook would rewrite the host's resolver.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { inNamespace, run } from './run.js';
import type { LabLayout } from './topology.js';

/**
 * udhcpc calls it with $1 = deconfig | bound | renew | leasefail | nak and the lease in the
 * environment: $ip, $mask (prefix length), $router, $mtu, $staticroutes ("dest/len gw ...").
 * Routes carry `proto dhcp` so a renewal replaces exactly the routes an earlier lease made.
 * A default route in option 121 wins over the router option (RFC 3442; Neutron puts the default
 * route into option 121 for that reason); without one, the router option gives the default route.
 */
const HOOK_SCRIPT = `#!/bin/sh
# octonet lab: udhcpc hook. Applies the lease to $interface only; never touches /etc/resolv.conf.
log() { [ -n "$OCTONET_LAB_DHCP_LOG" ] && echo "$*" >> "$OCTONET_LAB_DHCP_LOG"; return 0; }
event=$1
case $event in
  deconfig)
    ip addr flush dev "$interface"
    ip link set "$interface" up
    ;;
  bound|renew)
    log "$event ip=$ip mask=$mask router=$router mtu=$mtu staticroutes=$staticroutes lease=$lease serverid=$serverid"
    if [ -n "$mtu" ]; then ip link set "$interface" mtu "$mtu"; fi
    if ! ip -4 addr show dev "$interface" | grep -q "inet $ip/$mask "; then
      ip addr flush dev "$interface"
      ip addr add "$ip/$mask" dev "$interface"
    fi
    ip route flush dev "$interface" proto dhcp
    default_from_121=
    set -- $staticroutes
    while [ $# -ge 2 ]; do
      if [ "$2" = 0.0.0.0 ]; then
        ip route replace "$1" dev "$interface" proto dhcp
      else
        ip route replace "$1" via "$2" dev "$interface" proto dhcp
      fi
      [ "$1" = 0.0.0.0/0 ] && default_from_121=yes
      shift 2
    done
    if [ -z "$default_from_121" ] && [ -n "$router" ]; then
      set -- $router
      ip route replace default via "$1" dev "$interface" proto dhcp
    fi
    ;;
  leasefail|nak)
    log "$event $message"
    ;;
esac
exit 0
`;

/** Writes the hook into the run dir (at `up`), executable. */
export function installDhcpHook(layout: LabLayout): void {
  writeFileSync(layout.dhcpHook, HOOK_SCRIPT);
  chmodSync(layout.dhcpHook, 0o755);
}

export interface DhcpOptions {
  /** DISCOVERs sent, one a second, before giving up. */
  attempts: number;
}

/** Runs udhcpc once in the foreground on `iface` in `namespace`; throws with the hook's log on failure. */
export async function acquireDhcpLease(
  layout: LabLayout,
  vm: { name: string; namespace: string },
  iface: string,
  options: DhcpOptions,
): Promise<void> {
  const logFile = layout.vmDhcpLog(vm.name);
  const argv = inNamespace(
    vm.namespace,
    [
      'udhcpc',
      '-i',
      iface,
      '-f', // foreground
      '-q', // exit once bound: nothing keeps running in the VM's namespace
      '-n', // exit with an error if no lease
      '-t',
      String(options.attempts),
      '-T',
      '1',
      '-s',
      layout.dhcpHook,
      '-O',
      'mtu',
      '-O',
      'staticroutes',
    ],
    { OCTONET_LAB_DHCP_LOG: logFile },
  );
  const result = await run(argv, { allowFailure: true, timeoutMs: (options.attempts + 10) * 1000 });
  if (result.code !== 0) {
    let hookLog = '';
    try {
      hookLog = readFileSync(logFile, 'utf8').trim();
    } catch {
      // no lease event reached the hook
    }
    throw new Error(
      `DHCP on ${vm.name} got no lease (udhcpc exited with ${result.code}): ${(result.stderr + result.stdout).trim()}` +
        (hookLog ? `\nhook log:\n${hookLog}` : '') +
        `\nDoes the port have DHCP_Options (ovn-nbctl lsp-set-dhcpv4-options)?`,
    );
  }
}
