/**
 * An operator's `policy.yaml` over octonet's default policy, over HTTP (noauth headers name the
 * caller's project and roles): overrides by rule name, `rule:` references to other overrides and
 * to Neutron's base rules, re-reading the file when it changes, and refusing a broken file at start
 * (and keeping the previous rules when a change breaks it). SQLite: policy does not depend on the store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startApi, useApi, type Client } from '../fixtures/api.js';

const dir = mkdtempSync(join(tmpdir(), 'octonet-policy-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const policyFile = join(dir, 'policy.yaml');

/** Writes the file with an mtime of its own, so the change is seen whatever the file system's granularity. */
let version = 0;
function writePolicy(text: string): void {
  writeFileSync(policyFile, text);
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, ++version));
  utimesSync(policyFile, at, at);
}

const FIRST = `
# readers may create networks in their own project
"create_network": "role:reader and project_id:%(project_id)s"
# ports are made by the cloud's services only
"create_port": "rule:admin_only or role:service"
"net_editors": "role:editor"
"update_network": "rule:net_editors and project_id:%(project_id)s"
`;

describe('policy.yaml overrides', () => {
  writePolicy(FIRST);
  const api = useApi('sqlite', { config: { policy_file: policyFile } });
  const P = 'project-a';
  let reader: Client;
  let member: Client;
  let editor: Client;
  let network: { id: string };

  before(() => {
    reader = api.as({ project: P, roles: ['reader'] });
    member = api.as({ project: P, roles: ['member', 'reader'] });
    editor = api.as({ project: P, roles: ['member', 'reader', 'editor'] });
  });

  it('lets a reader create a network when an override says so', async () => {
    const r = await reader.post('/v2.0/networks', { network: { name: 'by-reader' } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.network.project_id, P);
    network = r.body.network;
  });

  it('forbids a member to create ports, through rule:admin_only, and still lets an admin', async () => {
    const r = await member.post('/v2.0/ports', { port: { network_id: network.id } });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.body.NeutronError.type, 'PolicyNotAuthorized');
    assert.match(r.body.NeutronError.message, /create_port/);
    const byAdmin = await api.admin.post('/v2.0/ports', { port: { network_id: network.id } });
    assert.equal(byAdmin.status, 201, byAdmin.text);
  });

  it('follows a rule: reference to another override', async () => {
    const denied = await member.put(`/v2.0/networks/${network.id}`, { network: { name: 'x' } });
    assert.equal(denied.status, 403, denied.text);
    const allowed = await editor.put(`/v2.0/networks/${network.id}`, { network: { name: 'renamed' } });
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(allowed.body.network.name, 'renamed');
  });

  it('keeps the defaults for what the file does not name', async () => {
    const r = await reader.post('/v2.0/security-groups', { security_group: { name: 'sg' } });
    assert.equal(r.status, 403, 'a reader still may not create a security group');
  });

  it('re-reads the file when it changes', async () => {
    writePolicy('"create_port": ""\n');
    const port = await member.post('/v2.0/ports', { port: { network_id: network.id } });
    assert.equal(port.status, 201, port.text);
    const net = await reader.post('/v2.0/networks', { network: { name: 'again' } });
    assert.equal(net.status, 403, 'the create_network override is gone: the default applies again');
    assert.ok(api.logs().some((l) => l.msg === 'policy overrides reloaded'));
  });

  it('keeps the previous rules when a change does not parse, and logs why', async () => {
    writePolicy('"create_port": "role:admin or"\n');
    const port = await member.post('/v2.0/ports', { port: { network_id: network.id } });
    assert.equal(port.status, 201, 'the previous file still rules');
    const errors = api.logs().filter((l) => l.msg === 'policy file not reloaded: keeping the previous rules');
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]!.err), /rule "create_port": cannot parse "role:admin or"/);
    await member.get('/v2.0/networks');
    assert.equal(
      api.logs().filter((l) => l.msg === 'policy file not reloaded: keeping the previous rules').length,
      1,
      'logged once per change, not per request',
    );
  });
});

describe('a policy.yaml that does not parse', () => {
  it('stops the start with a message naming the file and the rule', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, '"get_network": "role:admin or (project_id:%(project_id)s"\n');
    await assert.rejects(startApi('sqlite', { config: { policy_file: broken } }), (error: Error) => {
      assert.match(error.message, /policy file: .*broken\.yaml: rule "get_network": cannot parse/);
      assert.match(error.message, /a "\(" is not closed/);
      return true;
    });
  });
});
