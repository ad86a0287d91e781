/**
 * Pushing a new agent config to the running amphorae: what `openstack loadbalancer amphora
 * configure <id>` does, for every amphora Octavia lists. Octavia's API answers
 * `PUT /v2/octavia/amphorae/{id}/config` with 202 and casts to a worker, which renders the agent
 * config from its own options (`controller_ip_port_list` among them: reload the worker first)
 * and hands it to the amphora driver. The amphora then sends its heartbeats to the new list.
 *
 * Only amphorae that serve a load balancer are configured: Octavia's handler reads the amphora's
 * load balancer (a spare has none: Zed answers 500 `'NoneType' object has no attribute
 * 'project_id'`) and the deleted and failed ones have no agent to talk to.
 * A failure (Octavia away, a 409 or 5xx while an amphora is busy) is retried a few times, then
 * reported; it never stops the caller, who keeps the push pending and tries again on its next pass.
 */

/** An amphora as `GET /v2/octavia/amphorae` lists it (the fields we ask for). */
export interface AmphoraSummary {
  readonly id: string;
  readonly status: string;
  /** The API's name (the database's is `load_balancer_id`); null for a spare. */
  readonly loadbalancer_id: string | null;
}

/** Amphorae in these states have no agent worth a push (Octavia's `constants.AMPHORA_*`). */
const UNREACHABLE = new Set(['DELETED', 'PENDING_DELETE', 'ERROR']);

export class OctaviaApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'OctaviaApiError';
  }

  /** Worth another try: Octavia away, busy (409) or failing (5xx). */
  get transient(): boolean {
    return this.status === 0 || this.status === 409 || this.status >= 500;
  }
}

export interface OctaviaClientOptions {
  /** Octavia's root (the catalog's `load-balancer` endpoint), with or without `/v2`. */
  readonly url: string;
  /** The token header, asked for before each request; none for a noauth Octavia. */
  readonly authHeaders?: () => Promise<Record<string, string>>;
}

/** A hung Octavia call is abandoned after this long (a hang guard). */
const REQUEST_GIVE_UP_MS = 30_000;

/** The two Octavia calls the push needs. */
export class OctaviaClient {
  private readonly base: string;

  constructor(private readonly options: OctaviaClientOptions) {
    this.base = options.url.replace(/\/+$/, '').replace(/\/v2(\.0)?$/, '');
  }

  private async request(method: string, path: string): Promise<unknown> {
    const headers = { accept: 'application/json', ...(await this.options.authHeaders?.()) };
    let response: Response;
    try {
      response = await fetch(this.base + path, { method, headers, signal: AbortSignal.timeout(REQUEST_GIVE_UP_MS) });
    } catch (error) {
      const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
      throw new OctaviaApiError(0, `${method} ${path}: cannot reach ${this.base}: ${cause}`);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 300) || response.statusText;
      try {
        // Octavia's errors: {"faultcode", "faultstring", "debuginfo"}.
        message = (JSON.parse(text) as { faultstring?: string }).faultstring ?? message;
      } catch {
        // not JSON: keep the start of the text
      }
      throw new OctaviaApiError(response.status, `${method} ${path}: ${response.status} ${message}`);
    }
    return text ? (JSON.parse(text) as unknown) : undefined;
  }

  /** Every amphora, following Octavia's `amphorae_links` pages. */
  async listAmphorae(): Promise<AmphoraSummary[]> {
    const all: AmphoraSummary[] = [];
    let path: string | undefined = '/v2/octavia/amphorae?fields=id&fields=status&fields=loadbalancer_id';
    while (path !== undefined) {
      const body = (await this.request('GET', path)) as {
        amphorae?: AmphoraSummary[];
        amphorae_links?: { rel: string; href: string }[];
      };
      all.push(...(body.amphorae ?? []));
      const next = body.amphorae_links?.find((l) => l.rel === 'next')?.href;
      path = next === undefined ? undefined : nextPath(next);
    }
    return all;
  }

  /** `openstack loadbalancer amphora configure <id>`. */
  async configureAmphora(id: string): Promise<void> {
    await this.request('PUT', `/v2/octavia/amphorae/${encodeURIComponent(id)}/config`);
  }
}

/** A `next` link as a path on our base (Octavia may name its host differently behind a proxy). */
function nextPath(href: string): string {
  const url = new URL(href, 'http://octavia.invalid');
  return url.pathname.replace(/^.*(\/v2\/)/, '$1') + url.search;
}

export interface AmphoraPushReport {
  readonly configured: string[];
  readonly skipped: { readonly id: string; readonly status: string }[];
  readonly failed: { readonly id: string; readonly error: string }[];
  /** Set when the list itself could not be read: nothing was pushed. */
  readonly error?: string;
}

export interface AmphoraPushOptions {
  /** Tries per call (list, each configure) before it is reported as failed. Default 3. */
  readonly attempts?: number;
  /** Wait before the second try; doubles. Default 2 s. */
  readonly retryDelayMs?: number;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
}

async function withRetries<T>(call: () => Promise<T>, options: AmphoraPushOptions, what: string): Promise<T> {
  const attempts = options.attempts ?? 3;
  let delay = options.retryDelayMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const transient = !(error instanceof OctaviaApiError) || error.transient;
      if (!transient || attempt >= attempts) throw error;
      options.log?.(`${what} failed, trying again`, { attempt, error: (error as Error).message });
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

/** `amphora configure` for every amphora that serves a load balancer; never throws. */
export async function pushAmphoraConfig(
  client: OctaviaClient,
  options: AmphoraPushOptions = {},
): Promise<AmphoraPushReport> {
  let amphorae: AmphoraSummary[];
  try {
    amphorae = await withRetries(() => client.listAmphorae(), options, 'listing amphorae');
  } catch (error) {
    return { configured: [], skipped: [], failed: [], error: (error as Error).message };
  }
  const report: AmphoraPushReport = { configured: [], skipped: [], failed: [] };
  for (const amphora of amphorae) {
    if (!amphora.loadbalancer_id || UNREACHABLE.has(amphora.status)) {
      report.skipped.push({ id: amphora.id, status: amphora.status });
      continue;
    }
    try {
      await withRetries(() => client.configureAmphora(amphora.id), options, `amphora configure ${amphora.id}`);
      report.configured.push(amphora.id);
    } catch (error) {
      report.failed.push({ id: amphora.id, error: (error as Error).message });
    }
  }
  return report;
}
