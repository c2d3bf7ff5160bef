// @ts-check
/**
 * Timing for benchmark scripts: warm-up, several timed rounds, median and spread.
 *
 * A round calls the measured function `inner` times; its sample is the round's time
 * divided by `inner` (so sub-microsecond operations are measured above the timer's
 * resolution). The figure a script reports is the median sample; `spread` is
 * (max - min) / median over the rounds, which scripts print beside the figure because
 * the machines this runs on are shared and noisy.
 *
 * Every loop here is bounded: by `rounds`, by `inner`, and by `budgetMs` (no new round
 * starts once the budget is spent; at least one timed round always runs).
 */

/** Wall-clock milliseconds (monotonic). */
export const wallMs = () => performance.now();

/** CPU milliseconds of this process (user + system, all threads). */
export function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * @typedef {object} Stats
 * @property {number} median
 * @property {number} min
 * @property {number} max
 * @property {number} mean
 * @property {number} spread (max - min) / median; 0 for a single sample
 * @property {number[]} samples in the order measured
 */

/** @param {number[]} xs @returns {number} */
export function median(xs) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** @param {number[]} samples @returns {Stats} */
export function summarize(samples) {
  const med = median(samples);
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { median: med, min, max, mean, spread: samples.length > 1 ? (max - min) / med : 0, samples: [...samples] };
}

/**
 * Stats of a rate derived from time samples: `per` operations took each sample's ms.
 * (The median rate is the rate of the median time; min and max swap.)
 * @param {Stats} ms @param {number} per
 * @returns {Stats}
 */
export function toRate(ms, per) {
  return summarize(ms.samples.map((t) => (per * 1000) / t));
}

/**
 * @typedef {object} MeasureOptions
 * @property {number} [warmup] untimed rounds first (default 1)
 * @property {number} [rounds] timed rounds (default 5)
 * @property {number} [inner] calls per round (default 1)
 * @property {number} [budgetMs] no new timed round starts after this much time in total (default Infinity)
 * @property {() => number} [clock] wallMs (default) or cpuMs
 * @property {() => void} [before] called before each round, untimed (e.g. to reset state)
 */

/**
 * Time `fn`: `warmup` rounds, then up to `rounds` timed rounds of `inner` calls.
 * @param {() => unknown} fn
 * @param {MeasureOptions} [opts]
 * @returns {Stats} milliseconds per call
 */
export function measure(fn, opts = {}) {
  const { warmup = 1, rounds = 5, inner = 1, budgetMs = Infinity, clock = wallMs, before } = opts;
  const start = wallMs();
  for (let r = 0; r < warmup; r++) {
    if (before) before();
    for (let i = 0; i < inner; i++) fn();
  }
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    if (r > 0 && wallMs() - start > budgetMs) break;
    if (before) before();
    const t0 = clock();
    for (let i = 0; i < inner; i++) fn();
    samples.push((clock() - t0) / inner);
  }
  return summarize(samples);
}

/**
 * As `measure`, for an async function (awaited once per call).
 * @param {() => Promise<unknown>} fn
 * @param {MeasureOptions} [opts]
 * @returns {Promise<Stats>} milliseconds per call
 */
export async function measureAsync(fn, opts = {}) {
  const { warmup = 1, rounds = 5, inner = 1, budgetMs = Infinity, clock = wallMs, before } = opts;
  const start = wallMs();
  for (let r = 0; r < warmup; r++) {
    if (before) before();
    for (let i = 0; i < inner; i++) await fn();
  }
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    if (r > 0 && wallMs() - start > budgetMs) break;
    if (before) before();
    const t0 = clock();
    for (let i = 0; i < inner; i++) await fn();
    samples.push((clock() - t0) / inner);
  }
  return summarize(samples);
}

/**
 * Time several functions in interleaved rounds (round r times each of them in turn), so
 * that they meet the same load on a shared machine; also the per-round ratio of each
 * function to the first one, whose median is steadier than a ratio of two medians
 * taken at different times.
 * @template {string} K
 * @param {Record<K, () => unknown>} fns the first key is the baseline of the ratios
 * @param {{warmup?: number, rounds?: number, inner?: Partial<Record<K, number>>, clock?: () => number}} [opts]
 * @returns {{stats: Record<K, Stats>, ratios: Record<K, Stats>}} ms per call; ratios to the baseline
 */
export function measureInterleaved(fns, opts = {}) {
  const { warmup = 1, rounds = 5, clock = wallMs } = opts;
  const keys = /** @type {K[]} */ (Object.keys(fns));
  /** @type {Record<string, number[]>} */
  const samples = {};
  for (const k of keys) samples[k] = [];
  for (let r = -warmup; r < rounds; r++) {
    for (const k of keys) {
      const fn = fns[k];
      const inner = opts.inner?.[k] ?? 1;
      const t0 = clock();
      for (let i = 0; i < inner; i++) fn();
      if (r >= 0) samples[k].push((clock() - t0) / inner);
    }
  }
  const base = samples[keys[0]];
  const stats = /** @type {Record<K, Stats>} */ ({});
  const ratios = /** @type {Record<K, Stats>} */ ({});
  for (const k of keys) {
    stats[k] = summarize(samples[k]);
    ratios[k] = summarize(samples[k].map((t, i) => t / base[i]));
  }
  return { stats, ratios };
}

/**
 * How many calls of `fn` make a round of at least `roundMs` (doubling from 1, at most
 * `maxInner`). The calls made while calibrating also warm the code up.
 * @param {() => unknown} fn @param {number} roundMs @param {number} [maxInner]
 * @returns {number}
 */
export function calibrate(fn, roundMs, maxInner = 1 << 24) {
  let n = 1;
  for (;;) {
    const t0 = wallMs();
    for (let i = 0; i < n; i++) fn();
    const t = wallMs() - t0;
    if (t >= roundMs || n >= maxInner) return n;
    // jump close to the target once the time is measurable, else double
    n = t > 1 ? Math.min(maxInner, Math.ceil((n * roundMs) / t)) : Math.min(maxInner, n * 2);
  }
}

/**
 * The spread of `s` for a comment: "min 9.1 max 9.8, spread 7.5% of the median over 9 rounds".
 * @param {Stats} s
 */
export function spreadText(s) {
  return `min ${fmt(s.min)} max ${fmt(s.max)}, spread ${(s.spread * 100).toFixed(1)}% of the median over ${s.samples.length} rounds`;
}

/** @param {number} x */
function fmt(x) {
  return formatNumber(x);
}

/**
 * A number with about 3 significant digits (integers from 100 up).
 * @param {number} x
 * @returns {string}
 */
export function formatNumber(x) {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 100) return String(Math.round(x));
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a === 0) return '0';
  return x.toPrecision(3);
}
