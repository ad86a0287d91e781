/**
 * Extra DHCP options of a port (extra_dhcp_opt): which requested options are stored, and how an
 * update merges into the stored ones (a null value deletes that option).
 */

export interface DhcpOpt {
  opt_name: string;
  opt_value: string;
  ip_version: number;
}

export interface DhcpOptRequest {
  opt_name: string;
  opt_value: string | null;
  ip_version?: number;
}

/** Options that may be stored with an empty value. */
const BLANKABLE = ['router', 'classless-static-route'];

/** Neutron's `_is_valid_opt_value`: blank-able options need a value, others a non-empty one. */
function storable(opt: DhcpOptRequest): opt is DhcpOpt & DhcpOptRequest {
  return BLANKABLE.includes(opt.opt_name) ? opt.opt_value !== null : Boolean(opt.opt_value);
}

export function optionsForNewPort(requested: readonly DhcpOptRequest[] | null | undefined): DhcpOpt[] {
  return (requested ?? [])
    .filter(storable)
    .map((o) => ({ opt_name: o.opt_name, opt_value: o.opt_value!, ip_version: o.ip_version ?? 4 }));
}

/** `_update_extra_dhcp_opts_on_port`: update or delete the named options, add new ones. */
export function mergeOptions(current: readonly DhcpOpt[], requested: readonly DhcpOptRequest[]): DhcpOpt[] {
  const result = current.map((o) => ({ ...o }));
  for (const opt of requested) {
    const version = opt.ip_version ?? 4;
    const index = result.findIndex((o) => o.opt_name === opt.opt_name && o.ip_version === version);
    if (index >= 0) {
      if (opt.opt_value === null) result.splice(index, 1);
      else result[index]!.opt_value = opt.opt_value;
    } else if (storable(opt)) {
      result.push({ opt_name: opt.opt_name, opt_value: opt.opt_value!, ip_version: version });
    }
  }
  return result;
}
