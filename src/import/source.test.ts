import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSourceUrl, UnsupportedSourceUrl } from './source.js';

describe("Neutron's database URLs", () => {
  it('drops the SQLAlchemy driver from PostgreSQL URLs', () => {
    assert.deepEqual(parseSourceUrl('postgresql+psycopg2://neutron:pw@127.0.0.1:5442/neutron'), {
      kind: 'postgresql',
      url: 'postgresql://neutron:pw@127.0.0.1:5442/neutron',
    });
    assert.equal(parseSourceUrl('postgres://h/db').url, 'postgresql://h/db');
  });

  it("keeps Neutron's MySQL URL forms whole (driver, charset, unix_socket) and refuses unknown parameters", () => {
    for (const url of [
      'mysql+pymysql://neutron:pw@db:3306/neutron?charset=utf8',
      'mysql://neutron:pw@db/neutron',
      'mysql+mysqldb://neutron:pw@localhost/neutron?unix_socket=/run/mysqld/mysqld.sock',
    ]) {
      assert.deepEqual(parseSourceUrl(url), { kind: 'mysql', url });
    }
    assert.throws(
      () => parseSourceUrl('mysql+pymysql://neutron:secret@db/neutron?ssl_ca=/x'),
      (e: Error) => e instanceof UnsupportedSourceUrl && /ssl_ca/.test(e.message) && !e.message.includes('secret'),
    );
  });

  it('refuses other schemes, naming only the scheme (never the password)', () => {
    assert.throws(
      () => parseSourceUrl('sqlite:///neutron.db'),
      (e: Error) => {
        assert.ok(e instanceof UnsupportedSourceUrl);
        assert.match(e.message, /: sqlite:\.\.\.$/);
        return true;
      },
    );
  });
});
