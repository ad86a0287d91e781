/**
 * The attributes Neutron gives every resource with standard attributes (id, project, description,
 * tags, timestamps, revision), as attribute specs, plus the helpers that stamp them on writes.
 */
import type { AttributeSpec } from './attributes.js';
import { validateNameString, validateString, validateUuid } from './validators.js';

export const ID: AttributeSpec = {
  post: false,
  put: false,
  validate: validateUuid,
  visible: true,
  filter: true,
  sort: true,
};

export const NAME: AttributeSpec = {
  post: true,
  put: true,
  default: '',
  validate: validateNameString(255),
  visible: true,
  filter: true,
  sort: true,
};

/** `tenant_id` and `project_id` share one spec, as `populate_project_info` makes them. */
export const PROJECT: AttributeSpec = {
  post: true,
  put: false,
  validate: validateString(255),
  visible: true,
  filter: true,
  sort: true,
};

export const DESCRIPTION: AttributeSpec = {
  post: true,
  put: true,
  default: '',
  validate: validateString(255),
  visible: true,
  filter: true,
};

const READ_ONLY = { post: false, put: false, visible: true } as const;
const TAG_FILTER: AttributeSpec = { post: false, put: false, visible: false, filter: true };

/** revision_number, tags and their filters, timestamps: in Neutron's order. */
export const STANDARD_TAIL: Readonly<Record<string, AttributeSpec>> = {
  revision_number: { ...READ_ONLY, filter: true },
  tags: { ...READ_ONLY, filter: true },
  'tags-any': TAG_FILTER,
  'not-tags': TAG_FILTER,
  'not-tags-any': TAG_FILTER,
  created_at: READ_ONLY,
  updated_at: READ_ONLY,
};

/** The API's timestamp format: `2026-11-21T23:38:14Z`. */
export function timestamp(date = new Date()): string {
  return date.toISOString().slice(0, 19) + 'Z';
}
