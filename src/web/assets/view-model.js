// What to draw, from a topology snapshot and the page's state (search, project, focus): pure
// functions, no DOM. Ports are grouped per network; routers and networks are linked by id.

/** Ports in a network's group are listed without expanding when there are at most this many. */
export const SMALL_GROUP = 12;

/** How the page names a port: what it is for, from its device owner (and the VIPs it may hold). */
export function portKind(port, amphoraIds) {
  const owner = port.device_owner || '';
  if (owner === 'Octavia') return 'vip';
  if (owner === 'Octavia:health-mgr') return 'o-hm0';
  if (amphoraIds.has(port.id)) return 'amphora';
  if (owner.startsWith('compute:')) return 'vm';
  if (owner === 'network:dhcp') return 'dhcp';
  if (owner === 'network:distributed') return 'metadata';
  if (owner === 'network:floatingip') return 'floating ip';
  return 'port';
}

const KNOWN_STATUSES = new Set(['active', 'down', 'build', 'error']);

/** The status class of a resource: binding failures win over the status the API shows; N/A and the like are 'unknown'. */
export function statusClass(status, bindingFailed) {
  if (bindingFailed) return 'binding-failed';
  const s = String(status ?? '').toLowerCase();
  return KNOWN_STATUSES.has(s) ? s : 'unknown';
}

function includes(query, ...values) {
  return values.some((v) => v && String(v).toLowerCase().includes(query));
}

function groupBy(items, key) {
  const groups = new Map();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * The drawing's content: `state` is `{ query, project, focus: {kind, id} | null, expanded: Set }`.
 * Filters apply in order: project, focus (a network or router and its neighbourhood), search.
 */
export function buildView(feed, state) {
  const query = (state.query || '').trim().toLowerCase();
  const amphoraIds = new Set(feed.load_balancer_vips.flatMap((v) => v.amphorae.map((a) => a.port_id)));
  const vipPortIds = new Set(feed.load_balancer_vips.map((v) => v.port_id));
  const fipsByPort = groupBy(
    feed.floating_ips.filter((f) => f.port_id),
    (f) => f.port_id,
  );
  const projects = [
    ...new Set([...feed.networks, ...feed.routers, ...feed.ports].map((r) => r.project_id).filter(Boolean)),
  ].sort();

  // VIPs are drawn with their amphorae; floating IPs on what they point at.
  let ports = feed.ports.filter((p) => !vipPortIds.has(p.id) && p.device_owner !== 'network:floatingip');
  let routers = feed.routers;
  let vips = feed.load_balancer_vips;
  let networks = feed.networks;

  if (state.project) {
    const p = state.project;
    ports = ports.filter((x) => x.project_id === p);
    routers = routers.filter((x) => x.project_id === p);
    const portProject = new Map(feed.ports.map((x) => [x.id, x.project_id]));
    vips = vips.filter((v) => portProject.get(v.port_id) === p);
    const used = new Set([
      ...ports.map((x) => x.network_id),
      ...routers.flatMap((r) => [r.external_network_id, ...r.interfaces.map((i) => i.network_id)]),
    ]);
    networks = networks.filter((n) => n.project_id === p || used.has(n.id));
  }

  const routerNetworks = (r) => [r.external_network_id, ...r.interfaces.map((i) => i.network_id)].filter(Boolean);
  let focusName = null;
  if (state.focus) {
    const { kind, id } = state.focus;
    if (kind === 'network') {
      routers = routers.filter((r) => routerNetworks(r).includes(id));
      const near = new Set([id, ...routers.flatMap(routerNetworks)]);
      networks = networks.filter((n) => near.has(n.id));
      focusName = feed.networks.find((n) => n.id === id)?.name || id;
    } else if (kind === 'router') {
      routers = routers.filter((r) => r.id === id);
      const near = new Set(routers.flatMap(routerNetworks));
      networks = networks.filter((n) => near.has(n.id));
      focusName = feed.routers.find((r) => r.id === id)?.name || id;
    }
  }

  const matchIds = new Set();
  if (query) {
    const portHits = ports.filter((p) => includes(query, p.name, p.id, p.device_id, ...p.addresses));
    const vipHits = vips.filter((v) => includes(query, v.name, v.port_id, v.ip_address, ...v.floating_ips));
    const fipHits = feed.floating_ips.filter((f) => includes(query, f.address, f.id));
    const netHits = networks.filter((n) => includes(query, n.name, n.id, ...n.subnets));
    const routerHits = routers.filter((r) => includes(query, r.name, r.id, ...r.interfaces.map((i) => i.ip_address)));
    const fipPorts = new Set(fipHits.map((f) => f.port_id));
    for (const x of [...portHits, ...netHits, ...routerHits]) matchIds.add(x.id);
    for (const v of vipHits) matchIds.add(v.port_id);
    for (const p of ports) if (fipPorts.has(p.id)) matchIds.add(p.id);
    const keepNetworks = new Set([
      ...netHits.map((n) => n.id),
      ...ports.filter((p) => matchIds.has(p.id)).map((p) => p.network_id),
      ...vipHits.map((v) => v.network_id),
      ...routerHits.flatMap(routerNetworks),
    ]);
    routers = routers.filter((r) => matchIds.has(r.id) || routerNetworks(r).some((id) => matchIds.has(id)));
    networks = networks.filter((n) => keepNetworks.has(n.id));
    ports = ports.filter((p) => matchIds.has(p.id) || matchIds.has(p.network_id));
    vips = vips.filter((v) => matchIds.has(v.port_id) || matchIds.has(v.network_id));
  }

  const portsByNetwork = groupBy(ports, (p) => p.network_id);
  const vipsByNetwork = groupBy(vips, (v) => v.network_id);
  const networkById = new Map(feed.networks.map((n) => [n.id, n]));
  const allPortsById = new Map(feed.ports.map((p) => [p.id, p]));
  const drawNetwork = (n) => {
    const list = portsByNetwork.get(n.id) ?? [];
    const counts = {};
    for (const p of list) {
      const s = statusClass(p.status, p.binding_failed);
      counts[s] = (counts[s] ?? 0) + 1;
    }
    return {
      network: n,
      ports: list.map((p) => ({
        port: p,
        kind: portKind(p, amphoraIds),
        status: statusClass(p.status, p.binding_failed),
        fips: (fipsByPort.get(p.id) ?? []).map((f) => f.address),
      })),
      counts,
      expanded: state.expanded.has(n.id) || list.length <= SMALL_GROUP || (query !== '' && list.length <= 50),
      vips: (vipsByNetwork.get(n.id) ?? []).map((v) => ({
        vip: v,
        status: statusClass(allPortsById.get(v.port_id)?.status ?? (v.held_by ? 'ACTIVE' : 'DOWN')),
      })),
    };
  };
  return {
    admin: feed.nodes.length > 0 || feed.routers.some((r) => r.gateway_chassis),
    nodes: [...feed.nodes].sort((a, b) => a.host.localeCompare(b.host)),
    bgp: feed.bgp_speakers ?? [],
    external: networks.filter((n) => n.external).map(drawNetwork),
    networks: networks.filter((n) => !n.external).map(drawNetwork),
    routers: routers.map((r) => ({
      router: r,
      status: statusClass(r.status),
      externalName: r.external_network_id ? (networkById.get(r.external_network_id)?.name ?? '') : null,
      interfaces: r.interfaces.map((i) => ({ ...i, networkName: networkById.get(i.network_id)?.name ?? '' })),
    })),
    projects,
    matchIds,
    focusName,
  };
}
