import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { redactingLogger } from './log-redaction.js';

describe('log redaction', () => {
  it('censors token headers and passwords in objects logged whole, keeps the rest', () => {
    const lines: string[] = [];
    const logger = redactingLogger(pino({ level: 'info' }, { write: (line: string) => lines.push(line) }));
    logger.child({ component: 'x' }).info(
      {
        req: { method: 'GET', headers: { 'x-auth-token': 'T1', 'x-subject-token': 'T2', accept: 'application/json' } },
        headers: { 'x-service-token': 'T3', authorization: 'Bearer T4' },
        err: { password: 'P1', message: 'kept' },
        password: 'P2',
        token: 'T5',
      },
      'logged whole',
    );
    const line = JSON.parse(lines[0]!);
    for (const secret of ['T1', 'T2', 'T3', 'T4', 'T5', 'P1', 'P2']) assert.ok(!lines[0]!.includes(secret), secret);
    assert.equal(line.req.headers['x-auth-token'], '[redacted]');
    assert.equal(line.req.headers.accept, 'application/json');
    assert.equal(line.err.message, 'kept');
    assert.equal(line.component, 'x');
  });
});
