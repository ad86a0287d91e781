/** Routes of the quotas extension (`/v2.0/quotas...`). */
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './server.js';

export function registerQuotaRoutes(_app: FastifyInstance, _deps: ApiDeps): void {}
