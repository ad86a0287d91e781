/**
 * Health endpoints for load balancers and Kubernetes probes, outside the Neutron API (no token,
 * any `Accept`):
 *
 * - `GET|HEAD /healthcheck`: liveness, answered as oslo.middleware's healthcheck app answers it in
 *   Neutron's api-paste pipeline: 200 `OK` (text/plain by default; text/html or JSON
 *   `{"detailed": false, "reasons": ["OK"]}` when `Accept` prefers them), 204 with no body to
 *   HEAD. Never 503: the process answering is the liveness signal; it depends on nothing else,
 *   so a database outage never gets the pod restarted.
 * - `GET|HEAD /readyz`: readiness, JSON naming each dependency (the database, and what the drivers
 *   report: the OVN NB and SB connections, the NB's ownership), 200 when all are ready, else 503.
 *
 * This module owns these two answers; what each dependency means is its owner's business.
 */
import { sql } from 'kysely';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DependencyCheck } from '../drivers/contract.js';
import type { Store } from '../store/database.js';
import { route, type ApiDeps } from './http.js';

export const HEALTHCHECK_PATH = '/healthcheck';
export const READINESS_PATH = '/readyz';

/** Whether a request is for one of the health endpoints (served without a token, logged at debug). */
export const isHealthPath = (url: string | undefined): boolean => {
  // Every request asks: most are answered by the first test, without splitting the URL.
  if (url === undefined || (!url.startsWith(HEALTHCHECK_PATH) && !url.startsWith(READINESS_PATH))) return false;
  const path = url.split('?')[0];
  return path === HEALTHCHECK_PATH || path === READINESS_PATH;
};

/** How long the database may take to answer the readiness probe's `SELECT 1`. */
const DATABASE_PROBE_TIMEOUT_MS = 3000;

/** oslo.middleware's offers, in its order: on equal preference, the first wins (text/plain). */
const OFFERS = ['text/plain', 'text/html', 'application/json'] as const;
type Offer = (typeof OFFERS)[number];

/** The `Accept` offer webob's `acceptable_offers(...)[0]` picks; text/plain when none is acceptable. */
function negotiate(accept: string | undefined): Offer {
  if (!accept?.trim()) return 'text/plain';
  const ranges = accept.split(',').map((part) => {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return { range: range ?? '', q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
  const quality = (offer: Offer): number => {
    const [type] = offer.split('/');
    // The most specific matching range sets the offer's quality.
    const exact = ranges.find((r) => r.range === offer);
    const byType = ranges.find((r) => r.range === `${type}/*`);
    const any = ranges.find((r) => r.range === '*/*');
    return (exact ?? byType ?? any)?.q ?? 0;
  };
  let best: Offer = 'text/plain';
  let bestQ = 0;
  for (const offer of OFFERS) {
    const q = quality(offer);
    if (q > bestQ) [best, bestQ] = [offer, q];
  }
  return best;
}

/** Jinja's `|e` (markupsafe): the five characters it escapes. */
const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

/** The body oslo.middleware renders for `reasons` in the negotiated type (its non-detailed mode). */
function healthcheckBody(offer: Offer, reasons: readonly string[]): string {
  switch (offer) {
    case 'application/json':
      // json.dumps(..., indent=4, sort_keys=True)
      return JSON.stringify({ detailed: false, reasons }, null, 4);
    case 'text/html':
      // HTML_RESPONSE_TEMPLATE as Jinja renders it when not detailed, blank lines and all.
      return [
        '<HTML>',
        '<HEAD><TITLE>Healthcheck Status</TITLE></HEAD>',
        '<BODY>',
        '',
        `<H2>Result of ${reasons.length} checks:</H2>`,
        '<TABLE bgcolor="#ffffff" border="1">',
        '<TBODY>',
        '<TR>',
        '',
        '<TH>',
        'Reason',
        '</TH>',
        '</TR>',
        reasons.map((r) => `<TR>\n\n    <TD>${escapeHtml(r)}</TD>\n\n</TR>`).join(''),
        '</TBODY>',
        '</TABLE>',
        '<HR></HR>',
        '',
        '</BODY>',
        '</HTML>',
      ].join('\n');
    case 'text/plain':
      return reasons.join('\n');
  }
}

async function answerHealthcheck(request: FastifyRequest, reply: FastifyReply): Promise<string> {
  // Liveness: nothing can make a process that answers this unhealthy, so it is always OK.
  if (request.method === 'HEAD') {
    reply.code(204).type('text/plain; charset=UTF-8');
    return '';
  }
  const offer = negotiate(request.headers.accept);
  reply.code(200).type(`${offer}; charset=UTF-8`);
  return healthcheckBody(offer, ['OK']);
}

/**
 * `SELECT 1` on the store, within the probe's timeout; one probe at a time shares its answer. The
 * answer names the backend and the kind of failure only: `/readyz` needs no token, so addresses and
 * server messages stay in the log.
 */
function databaseProbe(store: Store): () => Promise<DependencyCheck> {
  const backend = store.dialect.describe.split(':')[0]!;
  let running: Promise<DependencyCheck> | undefined;
  const probe = async (): Promise<DependencyCheck> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), DATABASE_PROBE_TIMEOUT_MS);
    });
    try {
      const answer = await Promise.race([sql`select 1`.execute(store.db), timeout]);
      if (answer === 'timeout') {
        return {
          name: 'database',
          ready: false,
          detail: `${backend}: no answer within ${DATABASE_PROBE_TIMEOUT_MS / 1000} s`,
        };
      }
      return { name: 'database', ready: true, detail: backend };
    } catch (error) {
      const kind = store.classifyError(error)?.kind ?? 'error';
      return { name: 'database', ready: false, detail: `${backend}: unavailable (${kind})` };
    } finally {
      clearTimeout(timer);
    }
  };
  return () => (running ??= probe().finally(() => (running = undefined)));
}

export function registerHealthRoutes(app: FastifyInstance, deps: ApiDeps, version: string): void {
  route(app, HEALTHCHECK_PATH, { GET: answerHealthcheck, HEAD: answerHealthcheck });
  const database = databaseProbe(deps.services.deps.store);
  const readiness = async (request: FastifyRequest, reply: FastifyReply) => {
    const checks = [await database(), ...deps.services.deps.drivers.readiness()];
    const ready = checks.every((c) => c.ready);
    reply.code(ready ? 200 : 503).type('application/json');
    if (request.method === 'HEAD') return '';
    return {
      ready,
      version,
      checks: Object.fromEntries(checks.map(({ name, ready, detail }) => [name, { ready, detail }])),
    };
  };
  route(app, READINESS_PATH, { GET: readiness, HEAD: readiness });
}
