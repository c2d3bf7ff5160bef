// @ts-check
/**
 * Printing benchmark figures in the project's format (docs/design.md §5):
 *
 *   bench <name> <value> <unit>
 *   # a comment
 *
 * A script makes one Reporter from its command line (the name prefix run.js passes
 * as the first argument), asks `wants(name)` before measuring anything, and prints
 * every figure through `bench`, so a later ratio can be computed from what was
 * printed in the same run.
 */
import { formatNumber, spreadText } from './timing.js';


/**
 * The name prefix from a script's arguments: the first argument that is not a flag.
 * @param {string[]} [argv] defaults to process.argv
 */
export function prefixFromArgv(argv = process.argv) {
  for (const a of argv.slice(2)) if (!a.startsWith('--')) return a;
  return '';
}

/**
 * Parse one output line of a benchmark script.
 * @param {string} line
 * @returns {{name: string, value: number, unit: string} | null}
 */
export function parseBenchLine(line) {
  const m = /^bench (\S+) (\S+) (\S+)\s*$/.exec(line);
  if (!m) return null;
  const value = Number(m[2]);
  return Number.isFinite(value) ? { name: m[1], value, unit: m[3] } : null;
}

export class Reporter {
  /**
   * @param {string} [prefix] only names starting with it are wanted
   * @param {(line: string) => void} [out] defaults to console.log
   */
  constructor(prefix = '', out = (line) => console.log(line)) {
    this.prefix = prefix;
    this.out = out;
    /** @type {Map<string, {value: number, unit: string, stats?: import('./timing.js').Stats}>} */
    this.results = new Map();
  }

  /** Whether the figure `name` is selected. @param {string} name */
  wants(name) {
    return name.startsWith(this.prefix);
  }

  /** Whether any of `names` is selected. @param {string[]} names */
  wantsAny(names) {
    return names.some((n) => this.wants(n));
  }

  /**
   * Print a figure (even when not `wants`-ed: the caller decided to measure it).
   * With `stats`, a comment line follows giving the rounds' spread.
   * @param {string} name @param {number} value @param {string} unit
   * @param {{stats?: import('./timing.js').Stats, note?: string}} [opts] stats in the same unit as value
   */
  bench(name, value, unit, opts = {}) {
    this.results.set(name, { value, unit, stats: opts.stats });
    this.out(`bench ${name} ${formatNumber(value)} ${unit}`);
    const notes = [];
    if (opts.stats && opts.stats.samples.length > 1) notes.push(`median; ${spreadText(opts.stats)}`);
    if (opts.note) notes.push(opts.note);
    if (notes.length > 0) this.comment(`${name}: ${notes.join('; ')}`);
  }

  /** @param {string} text one or more lines, each printed as a comment */
  comment(text) {
    for (const line of text.split('\n')) this.out(`# ${line}`);
  }

  /** A figure printed earlier in this run. @param {string} name */
  get(name) {
    return this.results.get(name)?.value;
  }

  /** a / b of two figures printed in this run (NaN if either is missing). @param {string} a @param {string} b */
  ratio(a, b) {
    return (this.get(a) ?? NaN) / (this.get(b) ?? NaN);
  }

  /**
   * Print "# ratio a/b = x (target ...: met|NOT met)" when both figures exist.
   * `target` is checked against the ratio: {max} or {min}.
   * @param {string} a @param {string} b
   * @param {{max?: number, min?: number, label?: string}} [target]
   * @returns {number} the ratio (NaN when a figure is missing)
   */
  ratioComment(a, b, target = {}) {
    const r = this.ratio(a, b);
    if (!Number.isFinite(r)) return r;
    let t = '';
    if (target.max !== undefined) t = ` (target <= ${target.max}: ${r <= target.max ? 'met' : 'NOT met'})`;
    else if (target.min !== undefined) t = ` (target >= ${target.min}: ${r >= target.min ? 'met' : 'NOT met'})`;
    this.comment(`ratio ${a} / ${b} = ${r >= 100 ? Math.round(r) : r.toFixed(2)}${target.label ? ' ' + target.label : ''}${t}`);
    return r;
  }
}
