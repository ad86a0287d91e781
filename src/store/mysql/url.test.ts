/** MySQL URLs in octonet's and Neutron's (SQLAlchemy's) forms, read into mysql2's connection options. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnsupportedDatabaseUrl } from '../dialect.js';
import { describeMysqlUrl, isMysqlUrl, parseMysqlUrl } from './url.js';

describe('parseMysqlUrl', () => {
  it('reads user, password, host, port and database', () => {
    assert.deepEqual(parseMysqlUrl('mysql://neutron:s%40cret@db.example:3307/neutron'), {
      host: 'db.example',
      port: 3307,
      user: 'neutron',
      password: 's@cret',
      database: 'neutron',
    });
  });

  it('takes SQLAlchemy’s driver forms and mariadb://, and Kolla’s charset parameter', () => {
    for (const scheme of ['mysql+pymysql', 'mysql+mysqldb', 'mariadb', 'mariadb+pymysql', 'MySQL']) {
      assert.ok(isMysqlUrl(`${scheme}://u:p@h/n`), scheme);
      assert.deepEqual(parseMysqlUrl(`${scheme}://u:p@h/n?charset=utf8`), {
        host: 'h',
        user: 'u',
        password: 'p',
        database: 'n',
      });
    }
    assert.ok(!isMysqlUrl('postgresql://u@h/n'));
    assert.ok(!isMysqlUrl('sqlite:/x.db'));
  });

  it('connects through a unix socket when the URL names one', () => {
    assert.deepEqual(
      parseMysqlUrl('mysql+pymysql://neutron:pw@localhost/neutron?unix_socket=/run/mysqld/mysqld.sock'),
      {
        socketPath: '/run/mysqld/mysqld.sock',
        user: 'neutron',
        password: 'pw',
        database: 'neutron',
      },
    );
  });

  it('reads a bracketed IPv6 host and a URL without credentials', () => {
    assert.deepEqual(parseMysqlUrl('mysql://[2001:db8::5]:3306/octonet'), {
      host: '2001:db8::5',
      port: 3306,
      database: 'octonet',
    });
  });

  it('refuses a URL without a database and parameters it would otherwise drop', () => {
    assert.throws(() => parseMysqlUrl('mysql://u:p@h'), UnsupportedDatabaseUrl);
    assert.throws(() => parseMysqlUrl('mysql://u:p@h/'), /must name a database/);
    assert.throws(
      () => parseMysqlUrl('mysql://u:p@h/n?ssl_ca=/x&plugin=y'),
      /unsupported URL parameters: ssl_ca, plugin/,
    );
  });

  it('masks the password for logs', () => {
    assert.equal(
      describeMysqlUrl('mysql+pymysql://neutron:secret@db/neutron'),
      'mysql+pymysql://neutron:***@db/neutron',
    );
  });
});
