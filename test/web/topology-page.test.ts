/**
 * The topology page in Debian's Chromium against octonet over HTTP, without a lab: a FAKE data
 * plane (fake-data-plane.ts) binds ports and reports VIP holders, and port status changes come in
 * through `reportPortUp`, the call OVN's status watcher makes. The page draws every network,
 * router, port and VIP with its label and status colour, and follows changes live; search,
 * project filter, focus, port groups, keyboard, dark theme and print work; `/` serves the page to
 * browsers and the JSON version document to API clients; nothing is fetched from another origin.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { useApi } from '../fixtures/api.js';
import { FakeDataPlane } from './fake-data-plane.js';
import { buildSampleCloud, type SampleCloud } from './sample-cloud.js';
import { foreignRequests, openPage, useBrowser, type OpenPage } from './browser.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** Waiting on the DOM, not on time: generous, since the 1 s goal is measured in bench/web. */
const WAIT = { timeout: 10_000 };

const item = (kind: string, id: string) => `[data-kind="${kind}"][data-id="${id}"]`;

/** The colour of an item's status dot, and the colour the stylesheet's `variable` resolves to now. */
async function colourOf(page: Page, selector: string, variable: string): Promise<[string, string]> {
  // Evaluated in the page (a string: this file is compiled without the DOM's types).
  return page.evaluate(`(() => {
    const dot = document.querySelector(${JSON.stringify(`${selector} .dot`)});
    const probe = document.createElement('i');
    probe.style.color = 'var(${variable})';
    document.body.append(probe);
    const expected = getComputedStyle(probe).color;
    probe.remove();
    return [getComputedStyle(dot).backgroundColor, expected];
  })()`);
}

describe('topology page (noauth, fake data plane)', () => {
  const dataPlane = new FakeDataPlane();
  const api = useApi('sqlite', { drivers: [dataPlane] });
  const browser = useBrowser();
  let cloud: SampleCloud;
  let open: OpenPage;

  before(async () => {
    cloud = await buildSampleCloud(api.admin);
    const { ports } = api.server.services;
    for (const p of [cloud.vm1, cloud.vm2, cloud.amphora1, cloud.amphora2]) await ports.reportUp(p.id, true);
    dataPlane.hold(cloud.vip.id, cloud.amphora1.id, 'node1');
    await ports.reportVirtualHost(cloud.vip.id, 'node1');
    open = await openPage(browser(), `${api.url}/ui/`);
    await open.page.waitForSelector(item('port', cloud.vm1.id), WAIT);
  });

  it('draws each network, router, port and VIP with its label and status colour', async () => {
    const { page } = open;
    const label = (selector: string) => page.textContent(`${selector} .label`);
    assert.equal(await label(item('network', cloud.network.id)), 'web-net');
    assert.equal(await label(item('network', cloud.external.id)), 'public');
    assert.equal(await label(item('router', cloud.router.id)), 'edge');
    assert.equal(await label(item('port', cloud.vm1.id)), 'vm1');
    assert.equal(await page.getAttribute(item('port', cloud.vm1.id), 'data-port-kind'), 'vm');
    assert.equal(await page.getAttribute(item('port', cloud.amphora1.id), 'data-port-kind'), 'amphora');
    assert.match((await label(item('vip', cloud.vip.id))) ?? '', /octavia-lb-vip/);
    // The external network sits in its own band, the router's interface is listed with its address.
    assert.equal(await page.locator(`#band-external ${item('network', cloud.external.id)}`).count(), 1);
    assert.match((await page.textContent(item('router', cloud.router.id))) ?? '', /web-net\s*10\.20\.0\.1/);
    // The floating IP is shown on the VM it points at.
    assert.match((await page.textContent(item('port', cloud.vm1.id))) ?? '', /203\.0\.113\./);

    assert.equal(await page.getAttribute(item('port', cloud.vm1.id), 'data-status'), 'active');
    const [active, green] = await colourOf(page, item('port', cloud.vm1.id), '--active');
    assert.equal(active, green);
    // A port nobody reported up yet (the busy network's, once expanded) is DOWN and red.
    await page.click(`[data-expand="${cloud.busyNetwork.id}"]`);
    const busy = item('port', cloud.busyPorts[0].id);
    await page.waitForSelector(busy, WAIT);
    assert.equal(await page.getAttribute(busy, 'data-status'), 'down');
    const [down, red] = await colourOf(page, busy, '--down');
    assert.equal(down, red);
    assert.notEqual(green, red);
    // The VIP's holder is marked.
    assert.equal(await page.getAttribute(`${item('vip', cloud.vip.id)} [data-holder]`, 'data-id'), cloud.amphora1.id);
  });

  it('recolours a port when the status watcher reports it down, with no reload', async () => {
    const { page } = open;
    await page.evaluate('window.marker = 1');
    await api.server.services.ports.reportUp(cloud.vm2.id, false);
    await page.waitForSelector(`${item('port', cloud.vm2.id)}[data-status="down"]`, WAIT);
    const [colour, red] = await colourOf(page, item('port', cloud.vm2.id), '--down');
    assert.equal(colour, red);
    await api.server.services.ports.reportUp(cloud.vm2.id, true);
    await page.waitForSelector(`${item('port', cloud.vm2.id)}[data-status="active"]`, WAIT);
    // Same document: the change came over the event stream.
    assert.equal(await page.evaluate('window.marker'), 1);
  });

  it('moves the holder marker when the VIP fails over', async () => {
    const { page } = open;
    dataPlane.hold(cloud.vip.id, cloud.amphora2.id, 'node2');
    await page.waitForSelector(`${item('vip', cloud.vip.id)} ${item('amphora', cloud.amphora2.id)}[data-holder]`, WAIT);
    assert.equal(await page.locator(`${item('vip', cloud.vip.id)} [data-holder]`).count(), 1);
  });

  it('draws a BGP speaker with its peer and the floating IP route it advertises', async () => {
    const { page } = open;
    const post = async (path: string, body: unknown) => {
      const r = await api.admin.post(path, body);
      assert.equal(r.status, 201, r.text);
      return Object.values(r.body as Record<string, { id: string }>)[0]!;
    };
    const speaker = await post('/v2.0/bgp-speakers', {
      bgp_speaker: { name: 'fabric', local_as: 64512, ip_version: 4 },
    });
    const peer = await post('/v2.0/bgp-peers', {
      bgp_peer: { name: 'cloudgw1', peer_ip: '198.51.100.2', remote_as: 64600, auth_type: 'none' },
    });
    const action = (name: string, body: unknown) => api.admin.put(`/v2.0/bgp-speakers/${speaker.id}/${name}`, body);
    assert.equal((await action('add_bgp_peer', { bgp_peer_id: peer.id })).status, 200);
    assert.equal((await action('add_gateway_network', { network_id: cloud.external.id })).status, 200);
    const card = item('bgp-speaker', speaker.id);
    const route = `${card} .bgp-route[data-destination="${cloud.floatingIp.floating_ip_address}/32"]`;
    await page.waitForSelector(route, WAIT);
    assert.match((await page.textContent(card)) ?? '', /AS 64512/);
    assert.match((await page.textContent(`${card} .bgp-peer`)) ?? '', /198\.51\.100\.2 AS 64600/);
    // The next hop is the router's gateway address on the external network.
    assert.match((await page.textContent(route)) ?? '', /via 203\.0\.113\./);
  });

  it('shows a new network after an API write', async () => {
    const r = await api.admin.post('/v2.0/networks', { network: { name: 'late-net' } });
    assert.equal(r.status, 201, r.text);
    await open.page.waitForSelector(`${item('network', r.body.network.id)} >> text=late-net`, WAIT);
  });

  it('searches by name, ID and address', async () => {
    const { page } = open;
    await page.fill('#search', 'vm2');
    await page.waitForSelector(`${item('port', cloud.vm2.id)}.match`, WAIT);
    assert.equal(await page.locator(item('port', cloud.vm1.id)).count(), 0);
    assert.equal(await page.locator(item('network', cloud.busyNetwork.id)).count(), 0);
    await page.fill('#search', cloud.vm1.fixed_ips[0].ip_address);
    await page.waitForSelector(`${item('port', cloud.vm1.id)}.match`, WAIT);
    await page.fill('#search', cloud.busyPorts[3].id);
    await page.waitForSelector(`${item('port', cloud.busyPorts[3].id)}.match`, WAIT);
    assert.equal(await page.locator('[data-kind="port"]').count(), 1);
    await page.fill('#search', '');
    await page.waitForSelector(item('port', cloud.vm1.id), WAIT);
  });

  it('groups a busy network’s ports until expanded, and focuses on a neighbourhood', async () => {
    const { page } = open;
    const group = `[data-expand="${cloud.busyNetwork.id}"]`;
    assert.equal(await page.getAttribute(group, 'aria-expanded'), 'true'); // expanded in the first test
    await page.click(group);
    await page.waitForSelector(`${group}[aria-expanded="false"]`, WAIT);
    assert.equal(await page.locator(`${item('network', cloud.busyNetwork.id)} [data-kind="port"]`).count(), 0);
    assert.match((await page.textContent(group)) ?? '', /20 ports/);

    await page.click(`[data-focus="router:${cloud.router.id}"]`);
    await page.waitForSelector('#focus-info:not([hidden])', WAIT);
    assert.equal(await page.locator(item('network', cloud.busyNetwork.id)).count(), 0);
    assert.equal(await page.locator(item('network', cloud.network.id)).count(), 1);
    assert.equal(await page.locator(item('network', cloud.external.id)).count(), 1);
    // The router's links are drawn: gateway and interface.
    assert.equal(await page.locator('#links path').count(), 2);
    await page.click('#focus-clear');
    await page.waitForSelector(item('network', cloud.busyNetwork.id), WAIT);
  });

  it('filters by project', async () => {
    const other = '0123456789abcdef0123456789abcdef';
    const r = await api.admin.post('/v2.0/networks', { network: { name: 'other-net', project_id: other } });
    assert.equal(r.status, 201, r.text);
    const { page } = open;
    await page.waitForSelector(`#project option[value="${other}"]`, { ...WAIT, state: 'attached' });
    await page.selectOption('#project', other);
    await page.waitForSelector(item('network', r.body.network.id), WAIT);
    assert.equal(await page.locator(item('network', cloud.network.id)).count(), 0);
    await page.selectOption('#project', '');
    await page.waitForSelector(item('network', cloud.network.id), WAIT);
  });

  it('is keyboard-navigable', async () => {
    const { page } = open;
    await page.locator('body').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('/');
    assert.equal(await page.evaluate('document.activeElement.id'), 'search');
    await page.keyboard.press('Escape');
    await page.focus(item('router', cloud.router.id));
    await page.keyboard.press('ArrowRight');
    const next = await page.evaluate<string | undefined>('document.activeElement.dataset.kind');
    assert.ok(next && next !== 'router', `focus moved to ${next}`);
    await page.focus(item('network', cloud.busyNetwork.id));
    await page.keyboard.press('Enter');
    await page.waitForSelector(`[data-expand="${cloud.busyNetwork.id}"][aria-expanded="true"]`, WAIT);
    await page.keyboard.press('f');
    await page.waitForSelector('#focus-info:not([hidden])', WAIT);
    assert.equal(await page.locator(item('network', cloud.network.id)).count(), 0);
    await page.keyboard.press('Escape');
    await page.waitForSelector(item('network', cloud.network.id), WAIT);
  });

  it('has a dark theme (system preference and toggle) and a print layout', async () => {
    const { page } = open;
    const background = () => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await background();
    assert.notEqual(light, dark);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.click('#theme'); // auto → light
    await page.click('#theme'); // light → dark
    assert.equal(await background(), dark);
    await page.click('#theme'); // back to auto
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.isVisible('#search'), false);
    assert.equal(await background(), 'rgb(255, 255, 255)');
    await page.emulateMedia({ media: 'screen' });
  });

  it('made no request to another origin and logged no script error', () => {
    assert.deepEqual(foreignRequests(open.requests, api.url), []);
    assert.deepEqual(open.errors, []);
  });

  it('serves the page at / to browsers with a same-origin CSP, and JSON to API clients', async () => {
    const page = await fetch(`${api.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(await page.text(), /<title>octonet topology<\/title>/);
    for (const accept of [undefined, 'application/json', '*/*']) {
      const r = await fetch(`${api.url}/`, { headers: accept ? { accept } : {} });
      assert.equal(r.headers.get('content-type'), 'application/json', `Accept: ${accept}`);
      assert.equal(((await r.json()) as { versions: { id: string }[] }).versions[0]!.id, 'v2.0');
    }
    const ui = await fetch(`${api.url}/ui/app.js`);
    assert.match(ui.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal((await fetch(`${api.url}/ui/nothing.js`)).status, 404);
  });
});
