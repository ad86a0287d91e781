import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePolicyText } from './policy-file.js';
import { evaluatePolicy, parsePolicyRule, PolicySyntaxError, type PolicyEvaluation } from './policy-language.js';

const member = { roles: ['member', 'reader'], project_id: 'p1', tenant_id: 'p1', user_id: 'u1', is_admin: false };

function check(rule: string, target: Record<string, unknown> = {}, creds = member, rules: Record<string, string> = {}) {
  const e: PolicyEvaluation = {
    creds,
    target,
    rule: (name) => (name in rules ? evaluatePolicy(parsePolicyRule(rules[name]!), e) : false),
  };
  return evaluatePolicy(parsePolicyRule(rule), e);
}

describe('oslo.policy rule language', () => {
  it('an empty rule and @ allow, ! denies', () => {
    assert.equal(check(''), true);
    assert.equal(check('@'), true);
    assert.equal(check('!'), false);
  });

  it('checks roles case-insensitively', () => {
    assert.equal(check('role:Member'), true);
    assert.equal(check('role:admin'), false);
  });

  it('fills %(key)s from the target and compares with the credential of that name', () => {
    assert.equal(check('project_id:%(project_id)s', { project_id: 'p1' }), true);
    assert.equal(check('project_id:%(project_id)s', { project_id: 'p2' }), false);
    assert.equal(check('tenant_id:%(network:tenant_id)s', { 'network:tenant_id': 'p1' }), true);
    assert.equal(check('project_id:%(project_id)s', {}), false, 'a key missing from the target denies');
    assert.equal(check('project_id:%(target.project_id)s', { project_id: 'p1' }), true);
    assert.equal(check('user_id:u1'), true, 'a literal match');
    assert.equal(check('is_admin:True'), false);
  });

  it('compares a literal kind with the filled match, as Python prints values', () => {
    assert.equal(check('True:%(shared)s', { shared: true }), true);
    assert.equal(check('True:%(shared)s', { shared: false }), false);
    assert.equal(check("'ext':%(name)s", { name: 'ext' }), true);
  });

  it('reads field:RESOURCE:ATTR=VALUE from the target, a port’s network attributes too', () => {
    assert.equal(check('field:networks:shared=True', { shared: true }), true);
    assert.equal(check('field:networks:shared=True', { 'network:shared': true }), true);
    assert.equal(check('field:networks:shared=True', { shared: false }), false);
    assert.equal(check('field:networks:router:external=True', { 'router:external': true }), true);
    assert.equal(check('field:ports:device_owner=network:dhcp', { device_owner: 'network:dhcp' }), true);
  });

  it('binds and tighter than or, and not to the next check or group', () => {
    // (role:admin and role:x) or role:member
    assert.equal(check('role:admin and role:x or role:member'), true);
    // role:member and (role:x or role:admin) → false
    assert.equal(check('role:member and (role:x or role:admin)'), false);
    assert.equal(check('not role:admin'), true);
    assert.equal(check('not (role:admin or role:member)'), false);
    assert.equal(check('not role:admin and role:member'), true);
    assert.equal(check('((role:member))'), true);
    assert.equal(check('role:reader AND NOT role:admin'), true, 'operators are case-insensitive');
  });

  it('follows rule: references, and an unknown one denies', () => {
    const rules = { owner: 'project_id:%(project_id)s', admin_or_owner: 'role:admin or rule:owner' };
    assert.equal(check('rule:admin_or_owner', { project_id: 'p1' }, member, rules), true);
    assert.equal(check('rule:admin_or_owner', { project_id: 'p2' }, member, rules), false);
    assert.equal(check('rule:nothing or role:x', {}, member, rules), false);
  });

  it('refuses what it cannot parse, naming the problem', () => {
    for (const bad of [
      'role:admin or',
      '(role:admin',
      'role:admin)',
      'and role:admin',
      'role:admin role:member',
      'admin',
      'http://policy.example/check',
      'not',
    ]) {
      assert.throws(() => parsePolicyRule(bad), PolicySyntaxError, bad);
    }
  });
});

describe('policy files', () => {
  it('reads YAML and JSON mappings of rule names to check strings', () => {
    const yaml = parsePolicyText('"create_network": "role:reader"\nget_port: ""\n', 'p.yaml');
    assert.deepEqual([...yaml.keys()], ['create_network', 'get_port']);
    assert.equal(parsePolicyText('{"create_port": "!"}', 'p.json').size, 1);
    assert.equal(parsePolicyText('# only comments\n', 'p.yaml').size, 0);
  });

  it('names the rule whose check does not parse, and refuses what is not a mapping of strings', () => {
    assert.throws(
      () => parsePolicyText('create_port: "role:admin or"\n', 'p.yaml'),
      /p\.yaml: rule "create_port": cannot parse/,
    );
    assert.throws(() => parsePolicyText('create_port: [a]\n', 'p.yaml'), /rule "create_port": expected a check string/);
    assert.throws(() => parsePolicyText('- a\n', 'p.yaml'), /expected a mapping/);
    assert.throws(() => parsePolicyText('a: "x\n', 'p.yaml'), /not YAML or JSON/);
  });
});
