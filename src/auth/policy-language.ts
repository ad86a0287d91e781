/**
 * oslo.policy's rule language (oslo_policy/_parser.py, _checks.py) for `policy.yaml` overrides:
 * parses a check string into a tree and evaluates it against the caller and the target.
 *
 * - `and` binds tighter than `or`; `not` applies to the check or parenthesised group after it;
 *   `and`/`or`/`not` are case-insensitive; an empty string allows everyone, `@` too, `!` no one;
 * - `rule:NAME` is another rule (an override, else octonet's default; an unknown name denies);
 * - `role:NAME` is a role of the caller (case-insensitive);
 * - `field:RESOURCE:ATTR=VALUE` (Neutron's FieldCheck) compares the target's attribute, `True`
 *   and `False` as booleans;
 * - any other `KIND:MATCH` is oslo's GenericCheck: MATCH with `%(key)s` filled from the target
 *   (a missing key denies; `%(target.key)s` is read as `%(key)s` when no such key exists),
 *   compared with the caller's KIND (`project_id`, `tenant_id`, `user_id`, `is_admin`, ...), or
 *   with KIND itself when it is a literal (`True`, `'member'`, `42`); values are compared as Python
 *   prints them (`True`, `None`).
 *
 * Unlike oslo, which logs a rule it cannot parse and treats it as "deny", a syntax error or an
 * unknown check kind (`http:`, a misspelt `rol:`) is an error here, so an operator sees it at start.
 */

export type PolicyNode =
  | { readonly kind: 'true' }
  | { readonly kind: 'false' }
  | { readonly kind: 'and' | 'or'; readonly checks: readonly PolicyNode[] }
  | { readonly kind: 'not'; readonly check: PolicyNode }
  | { readonly kind: 'rule'; readonly name: string }
  | { readonly kind: 'role'; readonly match: string }
  | { readonly kind: 'field'; readonly resource: string; readonly attr: string; readonly value: string }
  | { readonly kind: 'generic'; readonly key: string; readonly match: string };

export class PolicySyntaxError extends Error {}

type Token = '(' | ')' | 'and' | 'or' | 'not' | { check: string };

/** `_parse_tokenize`: split on whitespace, peel parentheses off each word's ends. */
function tokenize(rule: string): Token[] {
  const tokens: Token[] = [];
  for (const word of rule.split(/\s+/)) {
    if (!word) continue;
    const clean = word.replace(/^\(+/, '');
    for (let i = 0; i < word.length - clean.length; i++) tokens.push('(');
    if (!clean) continue;
    const core = clean.replace(/\)+$/, '');
    const lowered = core.toLowerCase();
    if (lowered === 'and' || lowered === 'or' || lowered === 'not') tokens.push(lowered);
    else if (core) tokens.push({ check: core });
    for (let i = 0; i < clean.length - core.length; i++) tokens.push(')');
  }
  return tokens;
}

const KNOWN_KINDS = new Set(['rule', 'role', 'field']);

/** `_parse_check`: one `KIND:MATCH` word. */
function parseCheck(text: string): PolicyNode {
  if (text === '@') return { kind: 'true' };
  if (text === '!') return { kind: 'false' };
  const colon = text.indexOf(':');
  if (colon <= 0) throw new PolicySyntaxError(`"${text}" is not a check (expected KIND:MATCH, @ or !)`);
  const kind = text.slice(0, colon);
  const match = text.slice(colon + 1);
  if (kind === 'rule') return { kind: 'rule', name: match };
  if (kind === 'role') return { kind: 'role', match };
  if (kind === 'field') {
    const m = /^([^:]+):([^=]+)=(.*)$/.exec(match);
    if (!m) throw new PolicySyntaxError(`"${text}": a field check is field:RESOURCE:ATTR=VALUE`);
    return { kind: 'field', resource: m[1]!, attr: m[2]!, value: m[3]! };
  }
  if (kind === 'http' || kind === 'https')
    throw new PolicySyntaxError(`"${text}": ${kind} checks (asking a remote server) are not supported`);
  if (!KNOWN_KINDS.has(kind) && !/^([A-Za-z_][\w.:-]*|'[^']*'|"[^"]*"|-?\d+(\.\d+)?)$/.test(kind))
    throw new PolicySyntaxError(`"${text}": "${kind}" is not a credential name or a literal`);
  return { kind: 'generic', key: kind, match };
}

/** Recursive descent equivalent to oslo's shift-reduce: or ← and ← not ← ( ) | check. */
export function parsePolicyRule(rule: string): PolicyNode {
  if (!rule.trim()) return { kind: 'true' };
  const tokens = tokenize(rule);
  let at = 0;
  const peek = () => tokens[at];
  const fail = (why: string): never => {
    throw new PolicySyntaxError(`cannot parse "${rule}": ${why}`);
  };
  const unary = (): PolicyNode => {
    const token = tokens[at++];
    if (token === undefined) return fail('it ends where a check is expected');
    if (token === 'not') return { kind: 'not', check: unary() };
    if (token === '(') {
      const inner = or();
      if (tokens[at++] !== ')') fail('a "(" is not closed');
      return inner;
    }
    if (typeof token === 'string') return fail(`"${token}" where a check is expected`);
    return parseCheck(token.check);
  };
  /** `operand (op operand)*`, flattened into one node. */
  const chain = (op: 'and' | 'or', operand: () => PolicyNode): PolicyNode => {
    const checks = [operand()];
    while (peek() === op) {
      at++;
      checks.push(operand());
    }
    return checks.length === 1 ? checks[0]! : { kind: op, checks };
  };
  const and = () => chain('and', unary);
  const or = (): PolicyNode => chain('or', and);
  const tree = or();
  if (at < tokens.length) fail(`unexpected "${JSON.stringify(tokens[at])}"`);
  return tree;
}

/** The names `rule:` checks in `node` refer to. */
export function referencedRules(node: PolicyNode): string[] {
  switch (node.kind) {
    case 'rule':
      return [node.name];
    case 'and':
    case 'or':
      return node.checks.flatMap(referencedRules);
    case 'not':
      return referencedRules(node.check);
    default:
      return [];
  }
}

/** A value as Python's `str()` prints it, which is what oslo compares. */
function pythonStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return typeof value === 'object' ? JSON.stringify(value) : String(value as string | number);
}

/** `match % target`; undefined when a key is missing (the check then denies, as oslo's KeyError). */
function fillFromTarget(match: string, target: Readonly<Record<string, unknown>>): string | undefined {
  let missing = false;
  const filled = match.replace(/%%|%\(([^)]*)\)s/g, (whole, key: string | undefined) => {
    if (key === undefined) return '%';
    const name = key in target || !key.startsWith('target.') ? key : key.slice('target.'.length);
    if (!(name in target)) {
      missing = true;
      return whole;
    }
    return pythonStr(target[name]);
  });
  return missing ? undefined : filled;
}

/** A Python literal as oslo's `ast.literal_eval` would print it back, or undefined for a name. */
function literal(kind: string): string | undefined {
  if (kind === 'True' || kind === 'False' || kind === 'None') return kind;
  if (/^'[^']*'$|^"[^"]*"$/.test(kind)) return kind.slice(1, -1);
  if (/^-?\d+(\.\d+)?$/.test(kind)) return String(Number(kind));
  return undefined;
}

/** `_find_in_dict`: a dotted path into the credentials; a list matches when any element does. */
function findInCreds(value: unknown, path: readonly string[], match: string): boolean {
  if (path.length === 0) return match === pythonStr(value);
  if (typeof value !== 'object' || value === null || !(path[0]! in value)) return false;
  const next = (value as Record<string, unknown>)[path[0]!];
  const rest = path.slice(1);
  return Array.isArray(next) ? next.some((v) => findInCreds(v, rest, match)) : findInCreds(next, rest, match);
}

export interface PolicyEvaluation {
  readonly creds: Readonly<Record<string, unknown>> & { readonly roles: readonly string[] };
  readonly target: Readonly<Record<string, unknown>>;
  /** Evaluates another rule by name; false for a name that is not defined anywhere. */
  readonly rule: (name: string) => boolean;
}

export function evaluatePolicy(node: PolicyNode, e: PolicyEvaluation): boolean {
  switch (node.kind) {
    case 'true':
      return true;
    case 'false':
      return false;
    case 'and':
      return node.checks.every((c) => evaluatePolicy(c, e));
    case 'or':
      return node.checks.some((c) => evaluatePolicy(c, e));
    case 'not':
      return !evaluatePolicy(node.check, e);
    case 'rule':
      return e.rule(node.name);
    case 'role': {
      const role = fillFromTarget(node.match, e.target);
      return role !== undefined && e.creds.roles.some((r) => r.toLowerCase() === role.toLowerCase());
    }
    case 'field': {
      // Neutron reads a port's or subnet's network attributes from its network; octonet's targets
      // carry them as `network:<attr>`.
      const own = e.target[node.attr];
      const value = own === undefined && node.resource === 'networks' ? e.target[`network:${node.attr}`] : own;
      const wanted = /^(true|false)$/i.test(node.value) ? node.value.toLowerCase() === 'true' : node.value;
      return typeof wanted === 'boolean' ? value === wanted : pythonStr(value) === wanted;
    }
    case 'generic': {
      const match = fillFromTarget(node.match, e.target);
      if (match === undefined) return false;
      const lit = literal(node.key);
      return lit !== undefined ? lit === match : findInCreds(e.creds, node.key.split('.'), match);
    }
  }
}
