// Draws a view (view-model.js) into the page: cards for networks and routers, port groups, VIPs
// with their amphorae and holder, gateway chassis by priority, and the links between routers and
// networks as SVG paths over the cards. Text goes in through textContent only: names are the
// users' and must never become markup.

import { statusClass } from '/ui/view-model.js';

const SVG = 'http://www.w3.org/2000/svg';

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

const shortId = (id) => (id ? id.slice(0, 8) : '');
const labelOf = (name, id) => name || shortId(id);

function matchClass(view, id, base) {
  return view.matchIds.has(id) ? `${base} match` : base;
}

function portItem(view, { port, kind, status, fips }, admin) {
  return el(
    'li',
    {
      class: matchClass(view, port.id, `port st-${status}`),
      'data-kind': 'port',
      'data-id': port.id,
      'data-status': status,
      'data-port-kind': kind,
      tabindex: 0,
      title: `${kind} ${port.id} ${port.status}${port.binding_failed ? ' (binding failed)' : ''}`,
    },
    el('i', { class: 'dot' }),
    el('span', { class: 'label', text: labelOf(port.name, port.id) }),
    el('span', { class: 'kind', text: kind }),
    el('span', { class: 'addr', text: port.addresses.join(' ') }),
    admin && port.host ? el('span', { class: 'host', text: `@${port.host}` }) : null,
    ...fips.map((f) => el('span', { class: 'fip', text: `⇄ ${f}` })),
  );
}

function vipBlock(view, { vip, status }) {
  const heldBy = vip.held_by?.port_id;
  return el(
    'div',
    {
      class: matchClass(view, vip.port_id, `vip st-${status}`),
      'data-kind': 'vip',
      'data-id': vip.port_id,
      'data-status': status,
      'data-held-by': heldBy ?? '',
      tabindex: 0,
    },
    el(
      'div',
      { class: 'title' },
      el('i', { class: 'dot' }),
      el('span', { class: 'label', text: `VIP ${labelOf(vip.name, vip.port_id)}` }),
      el('span', { class: 'addr', text: vip.ip_address }),
      ...vip.floating_ips.map((f) => el('span', { class: 'fip', text: `⇄ ${f}` })),
      vip.host ? el('span', { class: 'host', text: `@${vip.host}` }) : null,
    ),
    el(
      'ul',
      { class: 'plain' },
      ...vip.amphorae.map((a) =>
        el(
          'li',
          {
            class: 'amphora',
            'data-kind': 'amphora',
            'data-id': a.port_id,
            'data-holder': a.port_id === heldBy,
            title: a.port_id === heldBy ? 'holds the VIP' : 'standby',
          },
          el('b', { class: 'holder-mark', text: '◆' }),
          el('span', { class: 'label', text: labelOf(a.name, a.port_id) }),
          a.host ? el('span', { class: 'host', text: `@${a.host}` }) : null,
        ),
      ),
    ),
  );
}

function networkCard(view, item, admin) {
  const n = item.network;
  const status = statusClass(n.status);
  const counts = Object.entries(item.counts)
    .sort()
    .map(([s, c]) => el('span', { class: `count st-${s}` }, el('i', { class: 'dot' }), `${c} ${s.toUpperCase()}`));
  const group = item.ports.length
    ? el(
        'button',
        {
          class: 'group',
          type: 'button',
          'data-expand': n.id,
          'aria-expanded': item.expanded ? 'true' : 'false',
        },
        `${item.expanded ? '▾' : '▸'} ${item.ports.length} port${item.ports.length === 1 ? '' : 's'} `,
        ...counts,
      )
    : null;
  return el(
    'article',
    {
      class: matchClass(view, n.id, `card network st-${status}${n.external ? ' external' : ''}`),
      'data-kind': 'network',
      'data-id': n.id,
      'data-status': status,
      tabindex: 0,
      'aria-label': `network ${labelOf(n.name, n.id)}`,
    },
    el(
      'header',
      {},
      el('h3', { class: 'label', text: labelOf(n.name, n.id) }),
      n.network_type ? el('span', { class: 'badge', text: n.network_type }) : null,
      n.shared ? el('span', { class: 'badge', text: 'shared' }) : null,
      el('button', {
        class: 'focus-btn',
        type: 'button',
        'data-focus': `network:${n.id}`,
        title: 'Focus (f)',
        text: '◎',
      }),
    ),
    el('p', { class: 'meta', text: n.subnets.join(' · ') || 'no subnet' }),
    ...item.vips.map((v) => vipBlock(view, v)),
    group,
    item.expanded && item.ports.length
      ? el('ul', { class: 'plain port-list' }, ...item.ports.map((p) => portItem(view, p, admin)))
      : null,
  );
}

function routerCard(view, item) {
  const r = item.router;
  const chassis = r.gateway_chassis ?? [];
  return el(
    'article',
    {
      class: matchClass(view, r.id, `card router st-${item.status}`),
      'data-kind': 'router',
      'data-id': r.id,
      'data-status': item.status,
      'data-gateway-host': chassis.find((c) => c.active)?.host ?? '',
      tabindex: 0,
      'aria-label': `router ${labelOf(r.name, r.id)}`,
    },
    el(
      'header',
      {},
      el('h3', { class: 'label', text: labelOf(r.name, r.id) }),
      el('span', { class: 'badge', text: 'router' }),
      el('button', {
        class: 'focus-btn',
        type: 'button',
        'data-focus': `router:${r.id}`,
        title: 'Focus (f)',
        text: '◎',
      }),
    ),
    item.externalName !== null
      ? el('p', { class: 'meta', text: `gateway → ${item.externalName || 'external'}` })
      : null,
    chassis.length
      ? el(
          'ol',
          { class: 'plain', 'aria-label': 'gateway chassis by priority' },
          ...chassis.map((c) =>
            el(
              'li',
              {
                class: `gw-chassis${c.active ? ' active' : ''} st-${c.alive ? 'active' : 'dead'}`,
                'data-host': c.host,
                'data-active': c.active,
              },
              el('b', { class: 'active-mark', text: '★' }),
              el('i', { class: 'dot' }),
              `${c.host} (priority ${c.priority})`,
            ),
          ),
        )
      : null,
    el(
      'ul',
      { class: 'plain' },
      ...item.interfaces.map((i) =>
        el(
          'li',
          { class: 'iface' },
          el('span', { text: i.networkName || shortId(i.network_id) }),
          el('span', { class: 'addr', text: i.ip_address }),
        ),
      ),
    ),
  );
}

/** A BGP speaker: its peers, the nodes' agents hosting it, and each route with the chassis announcing it. */
function bgpCard(speaker) {
  return el(
    'article',
    {
      class: 'card bgp',
      'data-kind': 'bgp-speaker',
      'data-id': speaker.id,
      tabindex: 0,
      'aria-label': `BGP speaker ${labelOf(speaker.name, speaker.id)}`,
    },
    el(
      'header',
      {},
      el('h3', { class: 'label', text: labelOf(speaker.name, speaker.id) }),
      el('span', { class: 'badge', text: `AS ${speaker.local_as}` }),
      el('span', { class: 'badge', text: `IPv${speaker.ip_version}` }),
    ),
    el(
      'ul',
      { class: 'plain', 'aria-label': 'peers' },
      ...speaker.peers.map((p) =>
        el('li', {
          class: 'bgp-peer',
          'data-id': p.id,
          text: `peer ${p.peer_ip} AS ${p.remote_as} (${labelOf(p.name, p.id)})`,
        }),
      ),
    ),
    el(
      'ul',
      { class: 'plain', 'aria-label': 'agents hosting the speaker' },
      ...speaker.dragents.map((a) =>
        el(
          'li',
          { class: `bgp-agent st-${a.alive ? 'active' : 'dead'}`, 'data-host': a.host },
          el('i', { class: 'dot' }),
          `agent on ${a.host}`,
        ),
      ),
    ),
    el(
      'ul',
      { class: 'plain', 'aria-label': 'advertised routes' },
      ...speaker.routes.map((r) =>
        el(
          'li',
          { class: 'bgp-route', 'data-destination': r.destination, 'data-announced-from': r.announced_from ?? '' },
          el('span', { class: 'addr', text: r.destination }),
          ` via ${r.next_hop}`,
          r.announced_from ? el('span', { class: 'host', text: `@${r.announced_from}` }) : null,
        ),
      ),
    ),
  );
}

function nodeItem(node) {
  const status = node.alive ? 'active' : 'dead';
  return el(
    'li',
    {
      class: `node st-${status}`,
      'data-kind': 'node',
      'data-id': node.host,
      'data-status': status,
      tabindex: 0,
      title: `${node.host}: ${node.alive ? 'alive' : 'dead'}${node.gateway ? ', gateway' : ''}`,
    },
    el('i', { class: 'dot' }),
    el('span', { class: 'label', text: node.host }),
    node.gateway ? el('span', { class: 'badge', text: 'gateway' }) : null,
  );
}

function fill(band, items) {
  const container = band.querySelector('.cards, .nodes');
  container.replaceChildren(...items);
  band.classList.toggle('empty', items.length === 0);
}

/** Redraws the bands from `view`; returns the card elements by id (for the links). */
export function render(root, view) {
  const admin = view.admin;
  fill(root.querySelector('#band-nodes'), view.nodes.map(nodeItem));
  fill(root.querySelector('#band-bgp'), view.bgp.map(bgpCard));
  fill(
    root.querySelector('#band-external'),
    view.external.map((n) => networkCard(view, n, admin)),
  );
  fill(
    root.querySelector('#band-routers'),
    view.routers.map((r) => routerCard(view, r)),
  );
  fill(
    root.querySelector('#band-networks'),
    view.networks.map((n) => networkCard(view, n, admin)),
  );
}

/** The router–network links as SVG paths, from where the cards ended up. */
export function drawLinks(root, view) {
  const svg = root.querySelector('#links');
  const origin = root.getBoundingClientRect();
  const cards = new Map();
  for (const card of root.querySelectorAll('article.card')) cards.set(card.dataset.id, card);
  const paths = [];
  for (const { router } of view.routers) {
    const from = cards.get(router.id)?.getBoundingClientRect();
    if (!from) continue;
    const targets = [
      ...(router.external_network_id ? [[router.external_network_id, 'gateway']] : []),
      ...router.interfaces.map((i) => [i.network_id, 'interface']),
    ];
    for (const [id, kind] of targets) {
      const to = cards.get(id)?.getBoundingClientRect();
      if (!to) continue;
      const x1 = from.left + from.width / 2 - origin.left;
      const x2 = to.left + to.width / 2 - origin.left;
      const below = to.top > from.bottom;
      const y1 = (below ? from.bottom : from.top) - origin.top;
      const y2 = (below ? to.top : to.bottom) - origin.top;
      const mid = (y1 + y2) / 2;
      const path = document.createElementNS(SVG, 'path');
      path.setAttribute('d', `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`);
      path.setAttribute('class', kind);
      paths.push(path);
    }
  }
  svg.replaceChildren(...paths);
}
