/**
 * oslo.config's INI files, read as oslo.config reads them (oslo_config/iniparser.py and cfg.py),
 * so a `neutron.conf` means here what it means to Neutron. Owns parsing and layering only; which
 * option means what to octonet is `neutron-conf.ts`.
 *
 * The rules taken from oslo.config:
 * - a line whose first character is a space or tab continues the previous value (joined with a
 *   newline), so an indented `#` is part of a value; a blank line ends a value;
 * - `#` and `;` start a comment only at the start of a line (`a = b # c` is the value `b # c`);
 * - `key = value` or `key: value`, whichever separator comes first; the value is trimmed and one
 *   pair of matching surrounding quotes is removed;
 * - section names are lower-cased except `DEFAULT` itself, and `[DEFAULT]` is a section like the
 *   others: its options are not inherited by other sections;
 * - files are read in order (`--config-file`s, then each `--config-dir`'s `*.conf` sorted by name):
 *   a single-valued option takes the last value of the last file that sets it; a multi-valued one
 *   collects every value of every file, in order;
 * - `$name`, `${name}` or `${group.name}` in a value is replaced by that option's value (`$name`
 *   looks in the value's own section, then `[DEFAULT]`); `$$` and `\$` are a literal `$`; a name no
 *   file sets is left as written (octonet does not know Neutron's registered defaults, apart from
 *   the few in `KNOWN_DEFAULTS`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from './config.js';

/** Section → option → every value the file gives it, in order. */
type ParsedFile = Map<string, Map<string, string[]>>;

/** What `oslo_config.cfg._normalize_group_name` does: `DEFAULT` stays, everything else lower-cases. */
function normalizeSection(name: string): string {
  return name === 'DEFAULT' ? name : name.toLowerCase();
}

/** One file's text as oslo's `BaseParser.parse` + `ConfigParser.assignment` would store it. */
export function parseOsloIni(text: string, filename: string): ParsedFile {
  const sections: ParsedFile = new Map();
  let section: string | undefined;
  let key: string | undefined;
  let value: string[] = [];
  let lineno = 0;
  const fail = (message: string, line: string): never => {
    throw new ConfigError(`${filename}: at line ${lineno}, ${message}: ${JSON.stringify(line)}`);
  };
  const flush = () => {
    if (key === undefined) return;
    if (section === undefined) fail('Section must be started before assignment', key);
    const options = sections.get(section!)!;
    const values = options.get(key) ?? [];
    values.push(value.join('\n'));
    options.set(key, values);
    key = undefined;
    value = [];
  };
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop(); // the final newline ends the last line, it adds none
  for (const raw of lines) {
    lineno++;
    const line = raw.trimEnd();
    if (!line) {
      flush();
      continue;
    }
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (key === undefined) fail('Unexpected continuation line', line);
      value.push(line.trimStart());
      continue;
    }
    flush();
    if (line.startsWith('[')) {
      if (!line.endsWith(']')) fail('Invalid section (must end with ])', line);
      if (line.length <= 2) fail('Empty section name', line);
      section = normalizeSection(line.slice(1, -1));
      if (!sections.has(section)) sections.set(section, new Map());
    } else if (line.startsWith('#') || line.startsWith(';')) {
      continue;
    } else {
      const colon = line.indexOf(':');
      const equal = line.indexOf('=');
      if (colon < 0 && equal < 0) fail("No ':' or '=' found in assignment", line);
      const at = colon < 0 || (equal >= 0 && equal < colon) ? equal : colon;
      key = line.slice(0, at).trim();
      let v = line.slice(at + 1).trim();
      if (v.length >= 2 && v[0] === v[v.length - 1] && (v[0] === '"' || v[0] === "'")) v = v.slice(1, -1);
      value = [v];
      if (!key) fail('Key cannot be empty', line);
    }
  }
  flush();
  return sections;
}

/** Values of options Neutron registers with a default that other options interpolate. */
const KNOWN_DEFAULTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  DEFAULT: { state_path: '/var/lib/neutron' },
};

const BOOLEAN_TRUE = ['true', '1', 'on', 'yes'];
const BOOLEAN_FALSE = ['false', '0', 'off', 'no'];

export interface OsloSources {
  /** `--config-file` paths, in order. */
  readonly files: readonly string[];
  /** `--config-dir` paths, in order; each one's `*.conf` files are read after the files, sorted by name. */
  readonly dirs?: readonly string[];
}

/** The layered view of every file given; typed getters convert as oslo's types do. */
export class OsloConfig {
  /** Section → option → values, oldest file first. */
  private readonly layers: ParsedFile[];
  /** The directories `findFile` searches, as oslo's `ConfigOpts.find_file`. */
  private readonly searchDirs: string[];
  /** Every file read, in order. */
  readonly files: readonly string[];

  constructor(
    layers: { file: string; parsed: ParsedFile }[],
    configFiles: readonly string[],
    configDirs: readonly string[],
  ) {
    this.layers = layers.map((l) => l.parsed);
    this.files = layers.map((l) => l.file);
    this.searchDirs = [...new Set([...configDirs, ...[...configFiles].reverse().map((f) => dirname(f))])];
  }

  /** Every `section.option` some file sets, in first-seen order. */
  optionNames(): string[] {
    const names = new Set<string>();
    for (const layer of this.layers) {
      for (const [section, options] of layer) for (const key of options.keys()) names.add(`${section}.${key}`);
    }
    return [...names];
  }

  /** Every value of a multi-valued option (MultiStrOpt), across all files in order; interpolated. */
  getMulti(section: string, name: string): string[] {
    const values = this.layers.flatMap((layer) => layer.get(section)?.get(name) ?? []);
    return values.map((v) => this.interpolate(v, section, 0));
  }

  /** A single-valued option: the last value in the last file that sets it; interpolated. */
  get(section: string, name: string): string | undefined {
    const raw = this.rawValue(section, name);
    return raw === undefined ? undefined : this.interpolate(raw, section, 0);
  }

  getBool(section: string, name: string): boolean | undefined {
    const value = this.get(section, name);
    if (value === undefined) return undefined;
    const lower = value.toLowerCase();
    if (BOOLEAN_TRUE.includes(lower)) return true;
    if (BOOLEAN_FALSE.includes(lower)) return false;
    throw new ConfigError(`[${section}] ${name}: expected a boolean (true/false, yes/no, on/off, 1/0), got "${value}"`);
  }

  getInt(section: string, name: string): number | undefined {
    const value = this.get(section, name);
    if (value === undefined) return undefined;
    if (!/^\s*[-+]?\d+\s*$/.test(value))
      throw new ConfigError(`[${section}] ${name}: expected an integer, got "${value}"`);
    return Number(value);
  }

  getFloat(section: string, name: string): number | undefined {
    const value = this.get(section, name);
    if (value === undefined) return undefined;
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number))
      throw new ConfigError(`[${section}] ${name}: expected a number, got "${value}"`);
    return number;
  }

  /** oslo's `types.List()`: comma-separated, items trimmed, one trailing comma allowed, empty → []. */
  getList(section: string, name: string): string[] | undefined {
    const value = this.get(section, name);
    if (value === undefined) return undefined;
    const s = value.trim().replace(/,$/, '');
    return s ? s.split(',').map((item) => item.trim()) : [];
  }

  /**
   * A file beside the configuration (`[oslo_policy] policy_file`), as `ConfigOpts.find_file`:
   * the `--config-dir`s first, then the directories of the `--config-file`s, last file first.
   * An absolute path is taken as it is.
   */
  findFile(name: string): string | undefined {
    if (name.startsWith('/')) return existsSync(name) ? name : undefined;
    for (const dir of this.searchDirs) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
    return undefined;
  }

  private rawValue(section: string, name: string): string | undefined {
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const values = this.layers[i]!.get(section)?.get(name);
      if (values?.length) return values[values.length - 1];
    }
    return undefined;
  }

  /** string.Template.safe_substitute with oslo's id pattern `[_a-z][._a-z0-9]*` (case-insensitive). */
  private interpolate(value: string, section: string, depth: number): string {
    if (depth > 20)
      throw new ConfigError(`[${section}]: interpolation of "${value}" does not end (a loop of $references)`);
    const escaped = value.replaceAll('\\$', '$$');
    return escaped.replace(
      /\$(?:(\$)|([_a-z][._a-z0-9]*)|\{([_a-z][._a-z0-9]*)\})/gi,
      (whole, dollar: string | undefined, bare: string | undefined, braced: string | undefined) => {
        if (dollar) return '$';
        const ref = (bare ?? braced)!;
        const found = this.lookup(ref, section);
        return found === undefined ? whole : this.interpolate(found.value, found.section, depth + 1);
      },
    );
  }

  /** `StrSubWrapper.__getitem__`: `group.opt`, else the option in the current group, else in DEFAULT. */
  private lookup(ref: string, section: string): { value: string; section: string } | undefined {
    const candidates: [string, string][] = [];
    const dot = ref.indexOf('.');
    if (dot > 0) candidates.push([normalizeSection(ref.slice(0, dot)), ref.slice(dot + 1)]);
    candidates.push([section, ref], ['DEFAULT', ref]);
    for (const [s, name] of candidates) {
      const raw = this.rawValue(s, name) ?? KNOWN_DEFAULTS[s]?.[name];
      if (raw !== undefined) return { value: raw, section: s };
    }
    return undefined;
  }
}

/** Reads the files and directories as `--config-file` / `--config-dir` name them; a missing one is an error. */
export function loadOsloConfig(sources: OsloSources): OsloConfig {
  const layers: { file: string; parsed: ParsedFile }[] = [];
  const read = (file: string) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
    layers.push({ file, parsed: parseOsloIni(text, file) });
  };
  const files = sources.files.map((f) => resolve(f));
  for (const file of files) read(file);
  const dirs = (sources.dirs ?? []).map((d) => resolve(d));
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError(`config dir ${dir} does not exist`);
    // Python's sorted() on the glob: code-point order, not the locale's.
    const names = readdirSync(dir)
      .filter((n) => n.endsWith('.conf') && !n.startsWith('.'))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) read(join(dir, name));
  }
  return new OsloConfig(layers, files, dirs);
}
