/**
 * The topology page's files (`assets/`: HTML, one script, one stylesheet, an icon), read from the
 * source tree once at start and served as they are: there is no build step for them and nothing
 * comes from another origin, which the Content-Security-Policy on every page response enforces.
 * Also the one content-negotiation rule the page needs: whether a request to `/` wants HTML.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `src/web/assets/`, from `src/web` (tsx) and from `dist/web` (the build) alike. */
const ASSET_DIR = fileURLToPath(new URL('../../src/web/assets/', import.meta.url));

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'render.js': 'text/javascript; charset=utf-8',
  'view-model.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

/** Headers on every page response: same-origin only, no framing, no sniffing, no referrer. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** Every asset by file name, read now (a missing file stops the start, not the first visitor). */
export function loadAssets(): ReadonlyMap<string, Asset> {
  return new Map(Object.entries(TYPES).map(([name, type]) => [name, { type, body: readFileSync(ASSET_DIR + name) }]));
}

/** The quality an `Accept` header gives `type` (`text/html`), through its exact, `text/*` or `*\/*` ranges. */
function quality(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = { specificity: -1, q: 0 };
  for (const range of accept.split(',')) {
    const [name, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const specificity = name === type ? 2 : name === `${major}/*` ? 1 : name === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const q = params.find((p) => p.startsWith('q='));
    best = { specificity, q: q ? Number(q.slice(2)) || 0 : 1 };
  }
  return best.q;
}

/**
 * Whether a client asking for `/` prefers the page to the JSON version document: a browser
 * (`text/html,...,*\/*;q=0.8`) does; keystoneauth (`application/json`), curl (`*\/*`) and a client
 * sending no Accept get JSON, as from Neutron.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  return quality(accept, 'text/html') > quality(accept, 'application/json');
}
