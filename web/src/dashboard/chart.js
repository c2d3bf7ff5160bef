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

  draw() {
    const c = this.canvas;
    const box = /** @type {HTMLElement} */ (c.parentElement).getBoundingClientRect();
    if (box.width < 4 || box.height < 4) return;
    const dpr = window.devicePixelRatio || 1;
    const W = Math.round(box.width * dpr);
    const H = Math.round(box.height * dpr);
    if (c.width !== W || c.height !== H) {
      c.width = W;
      c.height = H;
    }
    const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const w = box.width;
    const h = box.height;
    ctx.clearRect(0, 0, w, h);
    const color = this.spec.color;
    const key = this.spec.key;
    const pts = this.data;
    let max = 0;
    for (const p of pts) max = Math.max(max, p[key] ?? 0);
    this.peak.textContent = pts.length ? `peak ${compact(max)}` : '';
    const top = niceCeil(max * 1.1);
    // grid: three faint rules
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
    if (pts.length < 2) return;
    const tEnd = pts[pts.length - 1].t;
    const tStart = tEnd - this.windowMs;
    const X = (/** @type {number} */ t) => ((t - tStart) / this.windowMs) * (w - 4) + 1;
    const Y = (/** @type {number} */ v) => h - 2 - (v / top) * (h - 6);
    ctx.beginPath();
    let started = false;
    let x0 = 0;
    for (const p of pts) {
      if (p.t < tStart) continue;
      const x = X(p.t);
      const y = Y(p[key] ?? 0);
      if (!started) {
        ctx.moveTo(x, y);
        x0 = x;
        started = true;
      } else ctx.lineTo(x, y);
    }
    if (!started) return;
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
    ctx.beginPath();
    started = false;
    for (const p of pts) {
      if (p.t < tStart) continue;
      const x = X(p.t);
      const y = Y(p[key] ?? 0);
      if (!started) {
        ctx.moveTo(x, y);
        started = true;
      } else ctx.lineTo(x, y);
    }
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
