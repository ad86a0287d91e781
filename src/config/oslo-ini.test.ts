import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from './config.js';
import { loadOsloConfig, parseOsloIni } from './oslo-ini.js';

const dir = mkdtempSync(join(tmpdir(), 'oslo-ini-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe('oslo INI parsing', () => {
  it('reads key = value and key: value, trims, strips one pair of matching quotes', () => {
    const parsed = parseOsloIni(
      '[DEFAULT]\nbind_host = 10.0.0.1  \nbind_port: 9696\nname = "quoted value"\nodd = "mismatched\'\n',
      't',
    );
    const d = parsed.get('DEFAULT')!;
    assert.deepEqual(d.get('bind_host'), ['10.0.0.1']);
    assert.deepEqual(d.get('bind_port'), ['9696']);
    assert.deepEqual(d.get('name'), ['quoted value']);
    assert.deepEqual(d.get('odd'), ['"mismatched\'']);
  });

  it('takes the first of = and : as the separator (a URL after = keeps its colons)', () => {
    const d = parseOsloIni('[database]\nconnection = postgresql://u:p@h:5432/db\n', 't').get('database')!;
    assert.deepEqual(d.get('connection'), ['postgresql://u:p@h:5432/db']);
  });

  it('joins continuation lines with newlines until a blank line; an indented # belongs to the value', () => {
    const d = parseOsloIni('[a]\nlong = first\n  second\n\t# still value\n\nnext = x\n', 't').get('a')!;
    assert.deepEqual(d.get('long'), ['first\nsecond\n# still value']);
    assert.deepEqual(d.get('next'), ['x']);
  });

  it('treats # and ; as comments only at the start of a line', () => {
    const d = parseOsloIni('# top\n[a]\n; semi\nk = v # not a comment\n', 't').get('a')!;
    assert.deepEqual([...d.keys()], ['k']);
    assert.deepEqual(d.get('k'), ['v # not a comment']);
  });

  it('lower-cases section names except DEFAULT, and keeps every occurrence of a key', () => {
    const parsed = parseOsloIni('[ML2]\nx = 1\n[ml2]\nx = 2\n[default]\ny = 3\n', 't');
    assert.deepEqual(parsed.get('ml2')!.get('x'), ['1', '2']);
    assert.equal(parsed.get('DEFAULT'), undefined, '[default] is not [DEFAULT] to oslo');
    assert.deepEqual(parsed.get('default')!.get('y'), ['3']);
  });

  it('refuses what oslo refuses, with file and line', () => {
    assert.throws(() => parseOsloIni('k = v\n', 'f.conf'), /f\.conf: at line 1, Section must be started/);
    assert.throws(() => parseOsloIni('[a]\nnovalue\n', 'f.conf'), /at line 2, No ':' or '='/);
    assert.throws(() => parseOsloIni('[a\n', 'f.conf'), /must end with \]/);
    assert.throws(() => parseOsloIni('[]\n', 'f.conf'), /Empty section name/);
    assert.throws(() => parseOsloIni('[a]\n= v\n', 'f.conf'), /Key cannot be empty/);
    assert.throws(() => parseOsloIni('  indented\n', 'f.conf'), /Unexpected continuation line/);
  });
});

describe('oslo layering', () => {
  const a = file('a.conf', '[DEFAULT]\nbind_port = 1\ndebug = true\n[x]\nmulti = a1\nmulti = a2\n');
  const b = file('b.conf', '[DEFAULT]\nbind_port = 2\nbind_port = 3\n[x]\nmulti = b1\n');

  it('a later file wins, and within a file the last occurrence', () => {
    const conf = loadOsloConfig({ files: [a, b] });
    assert.equal(conf.getInt('DEFAULT', 'bind_port'), 3);
    assert.equal(conf.getBool('DEFAULT', 'debug'), true, 'an option only the first file sets stays');
    assert.equal(loadOsloConfig({ files: [b, a] }).getInt('DEFAULT', 'bind_port'), 1);
  });

  it('collects a multi-valued option from every file, in order', () => {
    assert.deepEqual(loadOsloConfig({ files: [a, b] }).getMulti('x', 'multi'), ['a1', 'a2', 'b1']);
  });

  it("reads a config dir's *.conf after the files, sorted by name, skipping other files", () => {
    file('d/20-late.conf', '[DEFAULT]\nbind_port = 20\n');
    file('d/10-early.conf', '[DEFAULT]\nbind_port = 10\nhost = early\n');
    file('d/99-ignored.ini', '[DEFAULT]\nbind_port = 99\n');
    file('d/.hidden.conf', '[DEFAULT]\nbind_port = 98\n');
    const conf = loadOsloConfig({ files: [b], dirs: [join(dir, 'd')] });
    assert.equal(conf.getInt('DEFAULT', 'bind_port'), 20);
    assert.equal(conf.get('DEFAULT', 'host'), 'early');
    assert.deepEqual(conf.files.slice(1), [join(dir, 'd/10-early.conf'), join(dir, 'd/20-late.conf')]);
  });

  it('refuses a missing file or directory', () => {
    assert.throws(() => loadOsloConfig({ files: [join(dir, 'nope.conf')] }), ConfigError);
    assert.throws(() => loadOsloConfig({ files: [], dirs: [join(dir, 'nope')] }), /does not exist/);
  });

  it('finds a file beside the config: config dirs first, then the last file’s directory', () => {
    file('d/policy.yaml', '{}');
    file('e/policy.yaml', '{}');
    const e = file('e/neutron.conf', '[DEFAULT]\n');
    assert.equal(
      loadOsloConfig({ files: [e], dirs: [join(dir, 'd')] }).findFile('policy.yaml'),
      join(dir, 'd/policy.yaml'),
    );
    assert.equal(loadOsloConfig({ files: [e] }).findFile('policy.yaml'), join(dir, 'e/policy.yaml'));
    assert.equal(loadOsloConfig({ files: [e] }).findFile('absent.yaml'), undefined);
  });
});

describe('oslo values', () => {
  const conf = loadOsloConfig({
    files: [
      file(
        'v.conf',
        [
          '[DEFAULT]',
          'state_path = /srv/neutron',
          'lock_path = $state_path/lock',
          'host = node1',
          'dollar = cost $$5 or \\$6',
          'unknown = $nobody/x',
          '[ovn]',
          'host = ovnhost',
          'own = ${host}-a',
          'qualified = ${DEFAULT.host}-b',
          'chained = $lock_path/c',
          'yes = Yes',
          'off = off',
          'bad = maybe',
          'list = a, b ,c,',
          'empty =',
          'num = 42',
        ].join('\n'),
      ),
    ],
  });

  it('interpolates $name, ${name} and ${group.name}, looking in the own section before DEFAULT', () => {
    assert.equal(conf.get('DEFAULT', 'lock_path'), '/srv/neutron/lock');
    assert.equal(conf.get('ovn', 'own'), 'ovnhost-a');
    assert.equal(conf.get('ovn', 'qualified'), 'node1-b');
    assert.equal(conf.get('ovn', 'chained'), '/srv/neutron/lock/c', 'an interpolated value is itself interpolated');
  });

  it('keeps $$ and \\$ as a dollar, and a reference to nothing as written', () => {
    assert.equal(conf.get('DEFAULT', 'dollar'), 'cost $5 or $6');
    assert.equal(conf.get('DEFAULT', 'unknown'), '$nobody/x');
  });

  it('knows Neutron’s state_path default when no file sets it', () => {
    const c = loadOsloConfig({ files: [file('s.conf', '[DEFAULT]\nlock_path = $state_path/lock\n')] });
    assert.equal(c.get('DEFAULT', 'lock_path'), '/var/lib/neutron/lock');
  });

  it('reads booleans as oslo does and refuses anything else', () => {
    assert.equal(conf.getBool('ovn', 'yes'), true);
    assert.equal(conf.getBool('ovn', 'off'), false);
    assert.throws(() => conf.getBool('ovn', 'bad'), /\[ovn\] bad: expected a boolean/);
    assert.equal(conf.getBool('ovn', 'absent'), undefined);
  });

  it('splits lists on commas, trimming items and one trailing comma', () => {
    assert.deepEqual(conf.getList('ovn', 'list'), ['a', 'b', 'c']);
    assert.deepEqual(conf.getList('ovn', 'empty'), []);
  });

  it('reads integers and refuses what is not one', () => {
    assert.equal(conf.getInt('ovn', 'num'), 42);
    assert.throws(() => conf.getInt('ovn', 'list'), /expected an integer/);
  });

  it('lists every option set, as section.option', () => {
    assert.ok(conf.optionNames().includes('DEFAULT.lock_path'));
    assert.ok(conf.optionNames().includes('ovn.num'));
  });
});
