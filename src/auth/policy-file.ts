/**
 * The operator's `policy.yaml` (or a JSON `policy.json`): oslo.policy rules by name, laid over
 * octonet's defaults. Owns reading and checking the file and re-reading it when it changes; the
 * rule language is `policy-language.ts`, the defaults `policy-rules.ts`.
 *
 * As oslo.policy's Enforcer does, the file's modification time is checked before enforcing (once
 * per turn of the event loop, so a list of a thousand items costs one stat) and the rules re-read
 * when it changed. A file that does not read or parse stops `serve` at start; on a
 * later change the previous rules stay in force and the error is logged (once per change).
 */
import { readFileSync, statSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config.js';
import { parsePolicyRule, PolicySyntaxError, referencedRules, type PolicyNode } from './policy-language.js';

/**
 * Neutron's base rules (neutron/conf/policies/base.py), which overrides may reference with
 * `rule:`. octonet's own defaults are functions (`policy-rules.ts`) and do not go through these
 * names, so overriding `context_is_admin` changes only the override rules that reference it.
 */
const NEUTRON_BASE_RULES: Readonly<Record<string, string>> = {
  context_is_admin: 'role:admin',
  owner: 'tenant_id:%(tenant_id)s',
  admin_or_owner: 'rule:context_is_admin or rule:owner',
  context_is_advsvc: 'role:advsvc',
  admin_or_network_owner: 'rule:context_is_admin or tenant_id:%(network:tenant_id)s',
  admin_owner_or_network_owner: 'rule:owner or rule:admin_or_network_owner',
  network_owner: 'tenant_id:%(network:tenant_id)s',
  admin_only: 'rule:context_is_admin',
  regular_user: '',
  shared: 'field:networks:shared=True',
  external: 'field:networks:router:external=True',
  default: 'rule:admin_or_owner',
  admin_or_ext_parent_owner: 'rule:context_is_admin or tenant_id:%(ext_parent:tenant_id)s',
  ext_parent_owner: 'tenant_id:%(ext_parent:tenant_id)s',
  sg_owner: 'tenant_id:%(security_group:tenant_id)s',
  shared_subnetpools: 'field:subnetpools:shared=True',
  shared_address_scopes: 'field:address_scopes:shared=True',
  service_api: 'role:service',
};

export type PolicyRuleSet = ReadonlyMap<string, PolicyNode>;

export const BASE_RULES: PolicyRuleSet = new Map(
  Object.entries(NEUTRON_BASE_RULES).map(([name, text]) => [name, parsePolicyRule(text)]),
);

/** Parses a policy file's text: a mapping of rule name → check string. Errors name the rule. */
export function parsePolicyText(text: string, file: string): PolicyRuleSet {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new PolicySyntaxError(`${file}: not YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return new Map();
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new PolicySyntaxError(`${file}: expected a mapping of rule names to check strings`);
  const rules = new Map<string, PolicyNode>();
  for (const [name, check] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof check !== 'string')
      throw new PolicySyntaxError(`${file}: rule "${name}": expected a check string, got ${JSON.stringify(check)}`);
    try {
      rules.set(name, parsePolicyRule(check));
    } catch (error) {
      throw new PolicySyntaxError(`${file}: rule "${name}": ${(error as Error).message}`);
    }
  }
  return rules;
}

/** The rules of the file, kept current. `rules()` is what each enforcement reads. */
export class PolicyFile {
  private current: PolicyRuleSet;
  private mtimeMs: number;
  /** The mtime of a change that failed to load, so its error is logged once. */
  private failedMtimeMs: number | undefined;
  /** Whether the file was checked in the current turn of the event loop. */
  private statedThisTick = false;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
    /** Rule names octonet knows (defaults and base rules), to warn about references to nothing. */
    private readonly knownRule: (name: string) => boolean,
  ) {
    try {
      this.mtimeMs = statSync(path).mtimeMs;
      this.current = this.read();
    } catch (error) {
      throw new ConfigError(`policy file: ${(error as Error).message}`);
    }
    logger.info({ policy_file: path, rules: this.current.size }, 'policy overrides loaded');
    this.warnUnknownReferences();
  }

  /** The override rules, re-read first when the file's mtime changed. */
  rules(): PolicyRuleSet {
    // One request asks for many rules in one go (a list: one per item and attribute): one stat then.
    if (this.statedThisTick) return this.current;
    this.statedThisTick = true;
    setImmediate(() => (this.statedThisTick = false));
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.path).mtimeMs;
    } catch (error) {
      this.failOnce(-1, error);
      return this.current;
    }
    if (mtimeMs === this.mtimeMs || mtimeMs === this.failedMtimeMs) return this.current;
    try {
      this.current = this.read();
      this.mtimeMs = mtimeMs;
      this.failedMtimeMs = undefined;
      this.logger.info({ policy_file: this.path, rules: this.current.size }, 'policy overrides reloaded');
      this.warnUnknownReferences();
    } catch (error) {
      this.failOnce(mtimeMs, error);
    }
    return this.current;
  }

  private read(): PolicyRuleSet {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      throw new Error(`cannot read ${this.path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
    return parsePolicyText(text, this.path);
  }

  private failOnce(mtimeMs: number, error: unknown): void {
    if (this.failedMtimeMs === mtimeMs) return;
    this.failedMtimeMs = mtimeMs;
    this.logger.error(
      { policy_file: this.path, err: (error as Error).message },
      'policy file not reloaded: keeping the previous rules',
    );
  }

  /** oslo warns too: a `rule:` to a name defined nowhere always denies, which is rarely meant. */
  private warnUnknownReferences(): void {
    const unknown = new Set<string>();
    for (const node of this.current.values())
      for (const name of referencedRules(node)) if (!this.current.has(name) && !this.knownRule(name)) unknown.add(name);
    if (unknown.size)
      this.logger.warn(
        { policy_file: this.path, rules: [...unknown].sort() },
        'policy file references rules defined nowhere; those references deny',
      );
  }
}
