/**
 * Secrets that must never reach a log line, as pino redaction paths, and the logger that applies
 * them. octonet's own log calls never pass headers or passwords; this is the net under that rule,
 * for a request or error object logged whole (a framework's, a library's, a future debug line).
 */
import type { Logger } from 'pino';

const SECRET_HEADERS = ['x-auth-token', 'x-subject-token', 'x-service-token', 'authorization', 'cookie'];
const SECRET_FIELDS = ['password', 'token'];

/** The paths, at the top level and one object down (`req.headers`, `err.password`). */
export const REDACTED_LOG_PATHS: readonly string[] = [
  ...SECRET_HEADERS.flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]),
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]),
];

/** A child of `logger` (same destination, level and bindings) that censors the paths above. */
export function redactingLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [...REDACTED_LOG_PATHS], censor: '[redacted]' } });
}
