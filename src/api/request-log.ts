/**
 * The request's logger and its one access line.
 *
 * Fastify gives every request a child logger bound to its request id. A pino child serialises its
 * bindings (through the redaction paths) when it is made, which costs as much as a port show's
 * database reads; most requests never log anything but their access line. So a request's logger
 * is made on its first enabled log call, and the access line is written by the parent with the
 * request id as the first field, which pino renders byte for byte as the child would.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type LogArgs = Parameters<Logger['info']>;

/** A request's logger that becomes `parent.child(bindings)` when it first logs at an enabled level. */
class LazyChildLogger implements FastifyBaseLogger {
  #child: Logger | undefined;

  constructor(
    readonly parent: Logger,
    readonly bindings: Bindings,
  ) {}

  /** The child, made now if it was not yet. */
  get materialised(): Logger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  /** Whether the child exists (it may then carry bindings or a level of its own). */
  get isMaterialised(): boolean {
    return this.#child !== undefined;
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.materialised.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.materialised.child(bindings, options);
  }

  #log(level: Level, args: LogArgs): void {
    if (!this.isLevelEnabled(level)) return;
    const child = this.materialised;
    (child[level] as (...a: LogArgs) => void).apply(child, args);
  }

  fatal(...args: LogArgs): void {
    this.#log('fatal', args);
  }
  error(...args: LogArgs): void {
    this.#log('error', args);
  }
  warn(...args: LogArgs): void {
    this.#log('warn', args);
  }
  info(...args: LogArgs): void {
    this.#log('info', args);
  }
  debug(...args: LogArgs): void {
    this.#log('debug', args);
  }
  trace(...args: LogArgs): void {
    this.#log('trace', args);
  }
  silent(): void {}
}

/**
 * Fastify's `childLoggerFactory`: the lazy child above, or pino's own child when the route asks for
 * options of its own (a log level, serializers), which octonet's routes do not.
 */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return logger.child(bindings, options);
  return new LazyChildLogger(logger as Logger, bindings);
}

/** What the access line says about a request; headers (tokens) are never part of it. */
export interface AccessLine {
  method: string;
  url: string;
  status: number;
  ms: number;
  project: string | null | undefined;
  user: string | null | undefined;
}

/**
 * Writes the request's access line at `level`. `idLabel` is the binding name of the request id
 * (fastify's `requestIdLogLabel`).
 */
export function logAccessLine(
  request: FastifyRequest,
  level: 'info' | 'debug',
  idLabel: string,
  line: () => AccessLine,
): void {
  const log = request.log;
  if (log instanceof LazyChildLogger && !log.isMaterialised) {
    if (log.parent.isLevelEnabled(level)) log.parent[level]({ [idLabel]: request.id, ...line() }, 'request');
  } else {
    log[level](line(), 'request');
  }
}

/** The access line of a finished request. */
export function accessLine(request: FastifyRequest, reply: FastifyReply): AccessLine {
  return {
    method: request.method,
    url: request.url,
    status: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 100) / 100,
    project: request.ctx?.projectId,
    user: request.ctx?.userId,
  };
}
