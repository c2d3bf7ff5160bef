// @ts-check
/**
 * A small time-series chart on a canvas: one metric of the rate history (an area under
 * a line, the current value large, the peak in the corner). No chart library.
 */
import { el, compact } from './format.js';

export class Chart {
  /**
   * @param {HTMLElement} parent
   * @param {{key: string, title: string, unit: string, color: string}} spec
   */
  constructor(parent, spec) {
    this.spec = spec;
    this.value = el('span', { class: 'chart-value', text: '–' });
    this.peak = el('span', { class: 'chart-peak' });
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas'));
    this.card = el(
      'div',
      { class: 'chart', dataset: { metric: spec.key } },
      el('div', { class: 'chart-head' }, el('span', { class: 'chart-title', text: spec.title }), el('span', { class: 'chart-unit', text: spec.unit }), this.peak),
      this.value,
      el('div', { class: 'chart-plot' }, this.canvas),
    );
    this.card.style.setProperty('--c', spec.color);
    parent.append(this.card);
    /** @type {any[]} */
    this.data = [];
    this.windowMs = 120000;
    new ResizeObserver(() => this.draw()).observe(this.canvas.parentElement ?? this.canvas);
  }

  /** @param {any[]} history samples ({t, [key]: number}) @param {number} windowMs */
  update(history, windowMs) {
    this.data = history;
    this.windowMs = windowMs;
    const last = history.length ? history[history.length - 1][this.spec.key] ?? 0 : NaN;
    this.value.textContent = compact(last);
    this.card.dataset.value = Number.isFinite(last) ? String(last) : '';
    this.draw();
  }

  /** Draw the history: grid, the area under the line, the line, the latest point. */
  draw() {
    const fit = this.fitCanvas();
    if (fit === null) return;
    const { ctx, w, h } = fit;
    const pts = this.data;
    const key = this.spec.key;
    let max = 0;
    for (const p of pts) max = Math.max(max, p[key] ?? 0);
    this.peak.textContent = pts.length ? `peak ${compact(max)}` : '';
    const top = niceCeil(max * 1.1);
    drawGrid(ctx, w, h, top);
    if (pts.length < 2) return;
    const tEnd = pts[pts.length - 1].t;
    const tStart = tEnd - this.windowMs;
    const X = (/** @type {number} */ t) => ((t - tStart) / this.windowMs) * (w - 4) + 1;
    const Y = (/** @type {number} */ v) => h - 2 - (v / top) * (h - 6);
    const x0 = traceLine(ctx, pts, key, tStart, X, Y);
    if (x0 === null) return;
    const color = this.spec.color;
    const xEnd = X(tEnd);
    ctx.save();
    ctx.lineTo(xEnd, h);
    ctx.lineTo(x0, h);
    ctx.closePath();
    const grad = ctx.createLinearGradient(0, 0, 0, h);
    grad.addColorStop(0, withAlpha(color, 0.32));
    grad.addColorStop(1, withAlpha(color, 0.02));
    ctx.fillStyle = grad;
    ctx.fill();
    ctx.restore();
    // the line again, on top
    traceLine(ctx, pts, key, tStart, X, Y);
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.6;
    ctx.lineJoin = 'round';
    ctx.stroke();
    const last = pts[pts.length - 1];
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.arc(xEnd, Y(last[key] ?? 0), 2.6, 0, Math.PI * 2);
    ctx.fill();
  }

  /**
   * Size the canvas to its box in device pixels and clear it; null while the box is too
   * small to draw in.
   * @returns {{ctx: CanvasRenderingContext2D, w: number, h: number} | null} w, h in CSS pixels
   */
  fitCanvas() {
    const c = this.canvas;
    const box = /** @type {HTMLElement} */ (c.parentElement).getBoundingClientRect();
    if (box.width < 4 || box.height < 4) return null;
    const dpr = window.devicePixelRatio || 1;
    const W = Math.round(box.width * dpr);
    const H = Math.round(box.height * dpr);
    if (c.width !== W || c.height !== H) {
      c.width = W;
      c.height = H;
    }
    const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, box.width, box.height);
    return { ctx, w: box.width, h: box.height };
  }
}

/**
 * Three faint rules and the scale's top value.
 * @param {CanvasRenderingContext2D} ctx @param {number} w @param {number} h @param {number} top
 */
function drawGrid(ctx, w, h, top) {
  ctx.strokeStyle = 'rgba(148,163,184,0.10)';
  ctx.lineWidth = 1;
  for (let i = 1; i <= 3; i++) {
    const y = Math.round((h * i) / 4) + 0.5;
    ctx.beginPath();
    ctx.moveTo(0, y);
    ctx.lineTo(w, y);
    ctx.stroke();
  }
  ctx.fillStyle = 'rgba(148,163,184,0.5)';
  ctx.font = '10px ui-monospace, monospace';
  ctx.textBaseline = 'top';
  ctx.fillText(compact(top), 2, 1);
}

/**
 * Begin a path along the samples inside the window (not stroked or filled).
 * @param {CanvasRenderingContext2D} ctx @param {any[]} pts @param {string} key @param {number} tStart
 * @param {(t: number) => number} X @param {(v: number) => number} Y
 * @returns {number | null} the x of the first point, null if no sample is in the window
 */
function traceLine(ctx, pts, key, tStart, X, Y) {
  ctx.beginPath();
  /** @type {number | null} */
  let x0 = null;
  for (const p of pts) {
    if (p.t < tStart) continue;
    const x = X(p.t);
    const y = Y(p[key] ?? 0);
    if (x0 === null) {
      ctx.moveTo(x, y);
      x0 = x;
    } else ctx.lineTo(x, y);
  }
  return x0;
}

/** @param {number} x @returns {number} 1, 2, 5 × 10^k at or above x (at least 1) */
function niceCeil(x) {
  if (!(x > 1)) return 1;
  const e = Math.pow(10, Math.floor(Math.log10(x)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * e >= x) return m * e;
  return 10 * e;
}

/** @param {string} hex #rrggbb @param {number} a */
function withAlpha(hex, a) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${a})`;
}
