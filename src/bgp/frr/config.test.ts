/**
 * FRR rendering and the choice between the vtysh fast path and a full reload. The rendered text is
 * also checked against a real FRR by the lab tests (test/lab/bgp.test.ts: frr-reload.py --test
 * must find nothing to change after an apply).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asOneTransaction, planFastPath, zebraCopy } from './apply.js';
import { canonicalPrefix, renderFrrConfig, type FrrSpeakerConfig } from './config.js';

const base: FrrSpeakerConfig = {
  routerId: '198.51.100.201',
  localAs: 64999,
  peers: [
    { address: '198.51.100.252', remoteAs: 64901 },
    { address: '198.51.100.251', remoteAs: 64901, password: 's3cret' },
  ],
  allowed: ['198.51.100.50/32', '10.0.0.0/24', '198.51.100.60/32'],
  announced: [
    { prefix: '198.51.100.50/32', nextHop: '198.51.100.5' },
    { prefix: '10.0.0.0/24', nextHop: '198.51.100.5' },
    { prefix: '198.51.100.60' },
  ],
  bfd: { intervalMs: 100, multiplier: 3 },
  restartTimeS: 120,
};

describe('renderFrrConfig', () => {
  const text = renderFrrConfig(base);

  it('peers with remote-as, MD5 password, BFD profile, and the outbound filter and next-hop map', () => {
    assert.match(text, /^ neighbor 198\.51\.100\.251 remote-as 64901$/m);
    assert.match(text, /^ neighbor 198\.51\.100\.251 password s3cret$/m);
    assert.doesNotMatch(text, /neighbor 198\.51\.100\.252 password/);
    assert.match(text, /^ neighbor 198\.51\.100\.252 bfd profile octonet$/m);
    assert.match(text, /^  neighbor 198\.51\.100\.252 prefix-list OCTONET-ALLOWED-V4 out$/m);
    assert.match(text, /^  neighbor 198\.51\.100\.252 route-map OCTONET-EXPORT-V4 out$/m);
    assert.match(text, /^ bgp graceful-restart$/m);
    assert.match(text, /^  receive-interval 100$/m);
  });

  it('announces only the placed prefixes, filters on every allowed one, sets the API next hop', () => {
    assert.deepEqual(
      text.split('\n').filter((l) => l.startsWith('  network ')),
      ['  network 10.0.0.0/24', '  network 198.51.100.50/32', '  network 198.51.100.60/32'],
    );
    assert.equal(text.split('\n').filter((l) => l.startsWith('ip prefix-list OCTONET-ALLOWED-V4')).length, 3);
    assert.match(
      text,
      /route-map OCTONET-EXPORT-V4 permit \d+\n match ip address prefix-list OCTONET-NH-198\.51\.100\.5\n set ip next-hop 198\.51\.100\.5/,
    );
    const group = text.split('\n').filter((l) => l.startsWith('ip prefix-list OCTONET-NH-198.51.100.5 '));
    assert.deepEqual(
      group.map((l) => l.split(' ').pop()),
      ['10.0.0.0/24', '198.51.100.50/32'],
      'the host route without next hop (distributed) stays next-hop-self',
    );
  });

  it('is the same text whatever order the inputs come in', () => {
    const shuffled = { ...base, peers: [...base.peers].reverse(), announced: [...base.announced].reverse() };
    assert.equal(renderFrrConfig({ ...shuffled, allowed: [...base.allowed].reverse() }), text);
  });

  it('an empty filter denies everything; IPv6 goes to its own family', () => {
    const v6 = renderFrrConfig({
      ...base,
      peers: [{ address: '2001:db8:100::251', remoteAs: 64901 }],
      allowed: ['2001:db8:200::/64'],
      announced: [{ prefix: '2001:db8:200::/64', nextHop: '2001:db8:100::5' }],
    });
    assert.match(v6, /^ip prefix-list OCTONET-ALLOWED-V4 seq \d+ deny any$/m);
    assert.match(v6, /^ipv6 prefix-list OCTONET-ALLOWED-V6 seq \d+ permit 2001:db8:200::\/64$/m);
    assert.match(v6, / set ipv6 next-hop global 2001:db8:100::5/);
    assert.match(
      v6,
      / address-family ipv6 unicast\n {2}network 2001:db8:200::\/64\n {2}neighbor 2001:db8:100::251 activate/,
    );
  });

  it('canonicalPrefix clears host bits and adds the host length', () => {
    assert.equal(canonicalPrefix('10.0.0.7/24'), '10.0.0.0/24');
    assert.equal(canonicalPrefix('198.51.100.9'), '198.51.100.9/32');
    assert.equal(canonicalPrefix('2001:db8::1'), '2001:db8::1/128');
  });
});

describe('planFastPath', () => {
  const before = renderFrrConfig(base);

  it('a new prefix with a known next hop: filter entries first, then the network line', () => {
    const after = renderFrrConfig({
      ...base,
      allowed: [...base.allowed, '198.51.100.51/32'],
      announced: [...base.announced, { prefix: '198.51.100.51/32', nextHop: '198.51.100.5' }],
    });
    const plan = planFastPath(before, after);
    assert.ok(plan, 'prefix-only changes take the fast path');
    const commands = plan.commands;
    const network = commands.indexOf('network 198.51.100.51/32');
    assert.ok(network > 0);
    assert.ok(
      commands
        .slice(0, network)
        .some((c) => /^ip prefix-list OCTONET-ALLOWED-V4 seq \d+ permit 198\.51\.100\.51\/32$/.test(c)),
    );
    assert.ok(
      commands
        .slice(0, network)
        .some((c) => /^ip prefix-list OCTONET-NH-198\.51\.100\.5 seq \d+ permit 198\.51\.100\.51\/32$/.test(c)),
    );
    assert.deepEqual(commands.slice(network - 2, network), ['router bgp 64999', 'address-family ipv4 unicast']);
  });

  it('a withdrawn prefix: the network line goes before its filter entries', () => {
    const after = renderFrrConfig({
      ...base,
      allowed: base.allowed.filter((p) => p !== '198.51.100.60/32'),
      announced: base.announced.filter((a) => a.prefix !== '198.51.100.60'),
    });
    const commands = planFastPath(before, after)!.commands;
    const network = commands.indexOf('no network 198.51.100.60/32');
    const filter = commands.findIndex((c) => /^no ip prefix-list OCTONET-ALLOWED-V4 .* 198\.51\.100\.60\/32$/.test(c));
    assert.ok(network > 0 && filter > network);
  });

  it('a new next hop: its route-map entry goes in whole, before the prefix it serves; it leaves whole', () => {
    const newNextHop = renderFrrConfig({
      ...base,
      allowed: [...base.allowed, '198.51.100.70/32'],
      announced: [...base.announced, { prefix: '198.51.100.70/32', nextHop: '198.51.100.6' }],
    });
    const commands = planFastPath(before, newNextHop)!.commands;
    const head = commands.findIndex((c) => /^route-map OCTONET-EXPORT-V4 permit \d+$/.test(c));
    assert.deepEqual(commands.slice(head + 1, head + 4), [
      'match ip address prefix-list OCTONET-NH-198.51.100.6',
      'set ip next-hop 198.51.100.6',
      'exit',
    ]);
    assert.ok(head < commands.indexOf('network 198.51.100.70/32'));
    const back = planFastPath(newNextHop, before)!.commands;
    assert.ok(back.indexOf(`no ${commands[head]!}`) > back.indexOf('no network 198.51.100.70/32'));
    // zebra gets the filter and route-map lines (as vtysh would hand them), never bgpd's own.
    const zebra = zebraCopy(commands);
    assert.ok(zebra.includes(commands[head]!) && zebra.includes('set ip next-hop 198.51.100.6'));
    assert.ok(zebra.some((c) => c.startsWith('ip prefix-list OCTONET-NH-198.51.100.6 ')));
    assert.ok(!zebra.some((c) => /^(router bgp|address-family|network)/.test(c)), zebra.join('\n'));
    assert.ok(zebraCopy(back).includes(`no ${commands[head]!}`));
    // Sent as one configuration session, as `vtysh -f` sends a file: one commit at the end.
    const session = asOneTransaction(commands);
    assert.deepEqual(session.slice(0, 2), ['configure terminal', 'XFRR_start_configuration']);
    assert.deepEqual(session.slice(-2), ['XFRR_end_configuration', 'end']);
    assert.equal(session.filter((c) => c === 'end' || c === 'configure terminal').length, 2);
    assert.ok(session.indexOf('network 198.51.100.70/32') > session.indexOf(commands[head]!));
  });

  it('a new peer or AS needs a full reload', () => {
    const newPeer = renderFrrConfig({ ...base, peers: [...base.peers, { address: '198.51.100.253', remoteAs: 1 }] });
    assert.equal(planFastPath(before, newPeer), undefined);
    assert.equal(planFastPath(before, renderFrrConfig({ ...base, localAs: 65000 })), undefined);
  });

  it('nothing changed: no commands', () => {
    assert.deepEqual(planFastPath(before, before)!.commands, []);
  });
});
