import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { libpqConnection } from './pg-tools.js';

describe('libpqConnection', () => {
  test('moves the password out of the URL into PGPASSWORD, decoded', () => {
    const { uri, env } = libpqConnection('postgres://fw:p%40ss%3Aword@db.example.com:6432/site1');
    assert.equal(uri, 'postgres://fw@db.example.com:6432/site1');
    assert.deepEqual(env, { PGPASSWORD: 'p@ss:word' });
  });

  test('takes a password given as a query parameter too', () => {
    const { uri, env } = libpqConnection('postgres://fw@db/site1?password=secret&application_name=x');
    assert.equal(uri, 'postgres://fw@db/site1?application_name=x');
    assert.equal(env.PGPASSWORD, 'secret');
  });

  test('keeps the libpq SSL parameters and turns node-postgres-only SSL settings into sslmode=require', () => {
    assert.equal(
      libpqConnection('postgres://fw@db/site1?sslmode=verify-full&sslrootcert=/etc/ca.pem').uri,
      'postgres://fw@db/site1?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem',
    );
    assert.equal(libpqConnection('postgres://fw@db/site1?ssl=true').uri, 'postgres://fw@db/site1?sslmode=require');
    assert.equal(libpqConnection('postgres://fw@db/site1?sslmode=no-verify').uri, 'postgres://fw@db/site1?sslmode=require');
    assert.equal(libpqConnection('postgres://fw@db/site1?uselibpqcompat=true&sslmode=require').uri, 'postgres://fw@db/site1?sslmode=require');
  });

  test('sets no environment when the URL carries no password', () => {
    const { uri, env } = libpqConnection('postgres:///site1?host=/var/run/postgresql');
    assert.equal(uri, 'postgres:///site1?host=%2Fvar%2Frun%2Fpostgresql');
    assert.deepEqual(env, {});
  });

  test('hands a URL only libpq can parse over unchanged', () => {
    assert.deepEqual(libpqConnection('postgresql://fw@/site1?host=/var/run/postgresql'), {
      uri: 'postgresql://fw@/site1?host=/var/run/postgresql',
      env: {},
    });
  });
});
