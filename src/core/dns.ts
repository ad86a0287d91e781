/**
 * DNS names of ports and domains of networks (the dns-integration and dns-domain-ports
 * extensions): neutron-lib's name and domain validators, and the `dns_assignment` a port shows.
 *
 * As in Neutron, a port's own `dns_name` only counts when the configured `dns_domain` is not the
 * default `openstacklocal`; otherwise every address gets the generated `host-<ip>` name.
 */
import { validateString, type Validator } from './validators.js';

const FQDN_MAX_LEN = 255;
const DNS_LABEL_RE = /^(?!-)[a-zA-Z0-9-]{1,63}(?<!-)$/;
export const DEFAULT_DNS_DOMAIN = 'openstacklocal.';

function validateDnsFormat(data: string, maxLen: number): string | undefined {
  if (!data) return undefined;
  const reason = (() => {
    const trimmed = data.endsWith('.') ? data.slice(0, -1) : data;
    if (trimmed.length > maxLen) return `'${trimmed}' exceeds the ${maxLen} character FQDN limit`;
    const labels = trimmed.split('.');
    for (const label of labels) {
      if (!label) return 'Encountered an empty component';
      if (label.startsWith('-') || label.endsWith('-')) return `Name '${label}' must not start or end with a hyphen`;
      if (!DNS_LABEL_RE.test(label)) {
        return `Name '${label}' must be 1-63 characters long, each of which can only be alphanumeric or a hyphen`;
      }
    }
    if (labels.length > 1 && /^[0-9]+$/.test(labels[labels.length - 1]!)) {
      return `TLD '${labels[labels.length - 1]}' must not be all numeric`;
    }
    return undefined;
  })();
  return reason ? `'${data}' not a valid PQDN or FQDN. Reason: ${reason}` : undefined;
}

/** `type:dns_domain_name`: empty, or an FQDN ending in a dot. */
export const validateDnsDomainName =
  (maxLen = FQDN_MAX_LEN): Validator =>
  (data) => {
    const msg = validateString()(data);
    if (msg || typeof data !== 'string') return msg;
    const text = data;
    if (!text) return undefined;
    if (!text.endsWith('.')) return `'${text}' is not a FQDN`;
    const format = validateDnsFormat(text, maxLen);
    if (format) return format;
    if (text.length > maxLen - 2) {
      return `'${text}' contains ${text.length} characters. Adding a sub-domain will cause it to exceed the maximum length of a FQDN of '${maxLen}'`;
    }
    return undefined;
  };

/** The configured domain with its trailing dot, as Neutron normalises `dns_domain`. */
export function configuredDnsDomain(dnsDomain: string): string {
  if (!dnsDomain) return '';
  return dnsDomain.endsWith('.') ? dnsDomain : `${dnsDomain}.`;
}

/** `type:dns_host_name`: a PQDN or an FQDN under the configured domain. */
export const validateDnsHostName =
  (configDomain: string, maxLen = FQDN_MAX_LEN): Validator =>
  (data) => {
    const msg = validateString()(data);
    if (msg || typeof data !== 'string') return msg;
    const text = data;
    const format = validateDnsFormat(text, maxLen);
    if (format) return format;
    const domain = configuredDnsDomain(configDomain);
    if (!text || !domain || domain === DEFAULT_DNS_DOMAIN) return undefined;
    const higher = `.${domain}`;
    if (!text.endsWith('.')) {
      if (text.length + higher.length > FQDN_MAX_LEN) {
        return `The dns_name passed is a PQDN and its size is '${text.length}'. The dns_domain option in neutron.conf is set to ${configDomain}, with a length of '${higher.length}'. When the two are concatenated to form a FQDN (with a '.' at the end), the resulting length exceeds the maximum size of '${FQDN_MAX_LEN}'`;
      }
      return undefined;
    }
    if (text.length <= higher.length || !text.endsWith(higher)) {
      return `The dns_name passed is a FQDN. Its higher level labels must be equal to the dns_domain option in neutron.conf, that has been set to '${configDomain}'. It must also include one or more valid DNS labels to the left of '${configDomain}'`;
    }
    return undefined;
  };

export interface DnsAssignment {
  ip_address: string;
  hostname: string;
  fqdn: string;
}

/** Whether ports may carry their own `dns_name` under this configuration. */
export function portDnsNamesEnabled(configDomain: string): boolean {
  const domain = configuredDnsDomain(configDomain);
  return domain !== '' && domain !== DEFAULT_DNS_DOMAIN;
}

/**
 * The `dns_assignment` of a port: its `dns_name` (when names are enabled) or `host-<ip>` for each
 * address, under the port's, then the network's, then the configured domain.
 */
export function dnsAssignment(
  addresses: readonly string[],
  dnsName: string,
  configDomain: string,
  portOrNetworkDomain: string,
): DnsAssignment[] {
  const enabled = portDnsNamesEnabled(configDomain);
  const domain = (enabled && portOrNetworkDomain) || configuredDnsDomain(configDomain);
  return addresses.map((ip) => {
    if (enabled && dnsName) {
      return { ip_address: ip, hostname: dnsName, fqdn: dnsName.endsWith('.') ? dnsName : `${dnsName}.${domain}` };
    }
    const hostname = `host-${ip.replace(/[.:]/g, '-')}`;
    return { ip_address: ip, hostname, fqdn: domain ? `${hostname}.${domain}` : hostname };
  });
}
