import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openNeutronSource, parseSourceUrl, UnsupportedSourceUrl } from './source.js';

describe("Neutron's database URLs", () => {
  it('drops the SQLAlchemy driver from PostgreSQL URLs', () => {
    assert.deepEqual(parseSourceUrl('postgresql+psycopg2://neutron:pw@127.0.0.1:5442/neutron'), {
      kind: 'postgresql',
      url: 'postgresql://neutron:pw@127.0.0.1:5442/neutron',
    });
    assert.equal(parseSourceUrl('postgres://h/db').url, 'postgresql://h/db');
  });

  it("reads PyMySQL's URLs without their query string", () => {
    assert.deepEqual(parseSourceUrl('mysql+pymysql://neutron:pw@db/neutron?charset=utf8'), {
      kind: 'mysql',
      url: 'mysql://neutron:pw@db/neutron',
    });
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

  it('refuses a MySQL source while this build has no MySQL driver', async () => {
    await assert.rejects(openNeutronSource('mysql+pymysql://u:p@db/neutron'), /not read yet/);
  });
});
