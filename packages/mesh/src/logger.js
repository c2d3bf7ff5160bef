// @ts-check
/**
 * Loggers named `termite:<package>:<component>`, injected into every component
 * (never a module-level singleton: two nodes in one process, or a test and the
 * node it checks, each keep their own entries and level).
 *
 * A Logger has four level methods taking a message and optional structured
 * fields, and `child(component)` which appends `:component` to the name.
 * The default sink writes one line per entry to the console
 * (`termite:mesh:admission warn admission refused {"reason":"bad token"}`).
 *
 * Level: entries below `level` are dropped. The default is 'info' for names
 * matched by the `TERMITE_LOG` pattern (comma-separated prefixes, `*` for
 * all; read from the environment when there is one) and 'warn' otherwise.
 */

/** @typedef {'debug' | 'info' | 'warn' | 'error'} LogLevel */
/** @typedef {{time: number, name: string, level: LogLevel, message: string, fields?: Record<string, unknown>}} LogEntry */
/**
 * @typedef {object} Logger
 * @property {string} name the logger's name, e.g. `termite:mesh:link`
 * @property {(message: string, fields?: Record<string, unknown>) => void} debug
 * @property {(message: string, fields?: Record<string, unknown>) => void} info
 * @property {(message: string, fields?: Record<string, unknown>) => void} warn
 * @property {(message: string, fields?: Record<string, unknown>) => void} error
 * @property {(component: string) => Logger} child a logger named `<name>:<component>`, same sink and level
 */

const RANK = { debug: 10, info: 20, warn: 30, error: 40 };

/** @param {LogEntry} e */
function consoleSink(e) {
  const fields = e.fields && Object.keys(e.fields).length ? ' ' + safeJson(e.fields) : '';
  const line = `${e.name} ${e.level} ${e.message}${fields}`;
  if (e.level === 'error' || e.level === 'warn') console.error(line);
  else console.log(line);
}

/** @param {unknown} v */
function safeJson(v) {
  try {
    return JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? `<${x.length} bytes>` : x));
  } catch {
    return '{}';
  }
}

/** @param {string} name */
function defaultLevel(name) {
  const pattern = /** @type {any} */ (globalThis).process?.env?.TERMITE_LOG;
  if (typeof pattern !== 'string' || pattern === '') return 'warn';
  const hit = pattern.split(',').some((p) => p === '*' || name.startsWith(p.replace(/\*$/, '')));
  return hit ? 'debug' : 'warn';
}

/**
 * @param {string} [name] default `termite:mesh`
 * @param {{level?: LogLevel, sink?: (entry: LogEntry) => void}} [options]
 * @returns {Logger}
 */
export function createLogger(name = 'termite:mesh', options = {}) {
  const sink = options.sink ?? consoleSink;
  const level = options.level ?? defaultLevel(name);
  const min = RANK[level];
  /** @param {LogLevel} lv */
  const at = (lv) => (RANK[lv] < min
    ? () => {}
    : (/** @type {string} */ message, /** @type {Record<string, unknown> | undefined} */ fields) => sink({ time: Date.now(), name, level: lv, message, fields }));
  return {
    name,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (component) => createLogger(`${name}:${component}`, { sink, level: options.level }),
  };
}

/**
 * A logger that keeps every entry in memory (tests assert on it).
 * @param {string} [name]
 * @returns {Logger & {entries: LogEntry[]}}
 */
export function createMemoryLogger(name = 'termite:mesh') {
  /** @type {LogEntry[]} */
  const entries = [];
  const logger = createLogger(name, { level: 'debug', sink: (e) => { if (entries.length < 100_000) entries.push(e); } });
  const wrap = (/** @type {Logger} */ l) => {
    const child = l.child;
    return Object.assign(l, { entries, child: (/** @type {string} */ c) => wrap(child(c)) });
  };
  return wrap(logger);
}
