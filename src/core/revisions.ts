/**
 * Revision numbers (standard-attr-revisions, revision-if-match): every write bumps the resource,
 * and `If-Match: revision_number=N` makes a write conditional on the revision it saw.
 */
import { RevisionNumberConstraintFailed } from './errors.js';
import type { Precondition } from './resource.js';

/** Refuses the write with 412 when the caller's `If-Match` names another revision. */
export function checkRevision(current: number, precondition: Precondition): void {
  const expected = precondition.revisionNumber;
  if (expected !== undefined && expected !== current) throw RevisionNumberConstraintFailed(expected, current);
}
