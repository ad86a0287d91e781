/**
 * The one place that turns errors into HTTP answers with Neutron's body
 * `{"NeutronError": {"type", "message", "detail"}}`.
 *
 * Known errors keep their type and status. A database outage is Neutron's 503 `ServiceUnavailable`
 * with `Retry-After`, logged at debug only (the store logs the outage once, not per request).
 * Anything else is a bug on our side: it is logged with the request id and answered with
 * Neutron's generic 500 text, never with internals.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailable, NeutronError, ServiceUnavailable, httpError } from '../core/errors.js';

export interface ErrorBody {
  NeutronError: { type: string; message: string; detail: string };
}

export function errorBody(error: NeutronError): ErrorBody {
  return { NeutronError: { type: error.type, message: error.message, detail: error.detail } };
}

/** Maps framework errors (oversized body, aborted request) to what Neutron answers. */
function fromFrameworkError(error: FastifyError): NeutronError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return httpError('HTTPRequestEntityTooLarge', 'Request is too large.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return httpError('HTTPBadRequest', 'Body contains invalid data');
    default:
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return httpError('HTTPBadRequest', 'Malformed request');
      }
      return null;
  }
}

/** The 503 for a database outage; the detail names the kind of failure, never the driver's text. */
function fromDatabaseUnavailable(error: DatabaseUnavailable): NeutronError {
  const { type, status, message } = ServiceUnavailable({});
  return new NeutronError(type, status, message, `The database is unavailable (${error.kind}); retry later.`);
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof DatabaseUnavailable) {
    request.log.debug({ kind: error.kind, err: error.message }, 'request failed: database unavailable');
    return reply
      .code(503)
      .header('retry-after', String(error.retryAfterSeconds))
      .header('content-type', 'application/json')
      .send(errorBody(fromDatabaseUnavailable(error)));
  }
  let known = error instanceof NeutronError ? error : fromFrameworkError(error as FastifyError);
  if (!known) {
    request.log.error({ err: error }, 'request failed with an internal error');
    known = httpError(
      'HTTPInternalServerError',
      'Request Failed: internal server error while processing your request.',
    );
  } else if (known.status >= 500) {
    request.log.warn({ type: known.type, msg: known.message }, 'request failed');
  }
  return reply.code(known.status).header('content-type', 'application/json').send(errorBody(known));
}
