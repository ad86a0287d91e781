/**
 * Reads a prepared request body (`prepareResource` has filled defaults, converted and validated
 * every attribute with Neutron's own validators and messages) into a typed value, once, so a
 * service works on typed fields instead of asserting each one where it reads it.
 *
 * The schemas restate what the attribute maps guarantee, nothing more; a mismatch is octonet's
 * bug (a map and its schema disagree), never the client's, so it is not a Neutron error.
 */
import type { z } from 'zod';
import type { Body } from './resource.js';

export function parsePrepared<T>(schema: z.ZodType<T>, body: Body, what: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new Error(`${what}: the prepared body does not match its schema: ${result.error.message}`);
  return result.data;
}

/** The create and update readers of one resource, named after it in their errors. */
export function bodyReaders<Create, Update>(
  what: string,
  create: z.ZodType<Create>,
  update: z.ZodType<Update>,
): { create: (body: Body) => Create; update: (body: Body) => Update } {
  return {
    create: (body) => parsePrepared(create, body, `${what} create`),
    update: (body) => parsePrepared(update, body, `${what} update`),
  };
}
