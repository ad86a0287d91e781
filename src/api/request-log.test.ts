/**
 * The request's lazy logger: a child is made only when something is logged at an enabled level,
 * its lines are the child's, and the access line written by the parent is byte for byte the one
 * the child would have written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { pino, type Logger } from 'pino';
import { redactingLogger } from '../auth/log-redaction.js';
import { lazyChildLoggerFactory, logAccessLine, type AccessLine } from './request-log.js';

function capture(level: string): { logger: Logger; lines: string[]; children: () => number } {
  const lines: string[] = [];
  // A fixed time and no pid/hostname so two lines can be compared whole.
  const base = pino(
    { level, base: { service: 'octonet' }, timestamp: () => ',"time":1' },
    { write: (l) => lines.push(l) },
  );
  const logger = redactingLogger(base);
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<Logger['child']>) => {
    made++;
    return child(...args);
  }) as Logger['child'];
  return { logger, lines, children: () => made };
}

const line: AccessLine = { method: 'GET', url: '/v2.0/ports/p', status: 200, ms: 1.25, project: 'p1', user: 'u1' };

/** The part of a request `logAccessLine` reads. */
const requestWith = (log: unknown, id: string) => ({ log, id }) as unknown as FastifyRequest;

describe('lazy request logger', () => {
  it('makes no child for a level that is off, and one for the first enabled line', () => {
    const { logger, lines, children } = capture('warn');
    const log = lazyChildLoggerFactory(logger, { request_id: 'req-1' }, {});
    log.info({ a: 1 }, 'not written');
    log.debug('nor this');
    assert.equal(children(), 0);
    assert.equal(lines.length, 0);
    log.warn({ a: 2 }, 'written');
    log.error('and this');
    assert.equal(children(), 1, 'one child, made once');
    assert.deepEqual(
      lines.map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.request_id, l.msg, l.level]),
      [
        ['req-1', 'written', 40],
        ['req-1', 'and this', 50],
      ],
    );
  });

  it('hands options of its own (a route log level) to a real child at once', () => {
    const { logger, children } = capture('info');
    const log = lazyChildLoggerFactory(logger, { request_id: 'req-2' }, { level: 'debug' });
    assert.equal(children(), 1);
    assert.equal(log.level, 'debug');
  });

  it('writes the access line from the parent exactly as the child writes it, secrets redacted alike', () => {
    const lazy = capture('info');
    logAccessLine(
      requestWith(lazyChildLoggerFactory(lazy.logger, { request_id: 'req-3' }, {}), 'req-3'),
      'info',
      'request_id',
      () => line,
    );
    assert.equal(lazy.children(), 0, 'no child for the access line');

    const eager = capture('info');
    logAccessLine(requestWith(eager.logger.child({ request_id: 'req-3' }), 'req-3'), 'info', 'request_id', () => line);
    assert.equal(lazy.lines.length, 1);
    assert.equal(lazy.lines[0], eager.lines[0]);
    assert.match(lazy.lines[0]!, /^\{"level":30,"time":1,"service":"octonet","request_id":"req-3","method":"GET",/);
  });

  it('writes the access line through the child once the request logged something', () => {
    const { logger, lines } = capture('info');
    const log = lazyChildLoggerFactory(logger, { request_id: 'req-4' }, {});
    log.warn('earlier');
    logAccessLine(requestWith(log, 'req-4'), 'info', 'request_id', () => line);
    const access = JSON.parse(lines[1]!) as Record<string, unknown>;
    assert.equal(access.request_id, 'req-4');
    assert.equal(access.msg, 'request');
    assert.equal(Object.keys(access).filter((k) => k === 'request_id').length, 1);
  });

  it('skips a health probe’s debug access line at info, and builds nothing for it', () => {
    const { logger, lines } = capture('info');
    let built = 0;
    logAccessLine(
      requestWith(lazyChildLoggerFactory(logger, { request_id: 'r' }, {}), 'r'),
      'debug',
      'request_id',
      () => {
        built++;
        return line;
      },
    );
    assert.equal(lines.length, 0);
    assert.equal(built, 0);
  });
});
