// @ts-check
/**
 * The mesh as a live graph (SVG): daemons as rounded squares, tabs as circles, each
 * ringed by one dot per process (pink: a process that migrated here); links styled by
 * transport (WebSocket solid, WebRTC dashed and flowing), RTT in a tooltip on hover;
 * a migration flies as a comet from the node it left to the node it reached.
 *
 * Layout is a small force simulation (repulsion, springs along links, a pull to the
 * centre) that settles and stops; it wakes when the topology changes or a node is
 * dragged. Every graph node carries data attributes the e2e tests read:
 * data-node-id, data-kind, data-self, data-processes; every link data-a, data-b,
 * data-transport, data-rtt.
 */
import { svg, nodeName, shortId, rtt, compact } from './format.js';

const MAX_DOTS = 48;

/**
 * @typedef {object} GNode
 * @property {string} id
 * @property {number} x
 * @property {number} y
 * @property {number} vx
 * @property {number} vy
 * @property {boolean} pinned dragged by the user
 * @property {SVGElement} g
 * @property {SVGElement} dots
 * @property {SVGElement} count
 * @property {SVGElement} label
 * @property {SVGElement} sub
 * @property {SVGElement} halo
 * @property {string} kind
 * @property {string} sig what the dots were drawn from
 */
/**
 * @typedef {object} GLink
 * @property {string} key
 * @property {string} a
 * @property {string} b
 * @property {SVGElement} g
 * @property {SVGElement} line
 * @property {SVGElement} hit
 * @property {SVGElement} pill
 * @property {SVGElement} pillText
 * @property {string} transport
 * @property {number|null} rttMs
 */

export class MeshGraph {
  /**
   * @param {SVGSVGElement} root
   * @param {HTMLElement} tooltip
   * @param {{onSelect: (id: string) => void}} opts
   */
  constructor(root, tooltip, opts) {
    this.root = root;
    this.tooltip = tooltip;
    this.onSelect = opts.onSelect;
    /** @type {Map<string, GNode>} */
    this.nodes = new Map();
    /** @type {Map<string, GLink>} */
    this.links = new Map();
    /** @type {string|null} */
    this.selected = null;
    this.w = 800;
    this.h = 500;
    this.alpha = 1;
    this.running = false;
    /** @type {import('./store.js').Store|null} */
    this.store = null;
    this.bg = svg('rect', { class: 'bg', x: 0, y: 0, width: '100%', height: '100%', fill: 'url(#dotgrid)' });
    this.gLinks = svg('g', { class: 'links' });
    this.gComets = svg('g', { class: 'comets' });
    this.gNodes = svg('g', { class: 'nodes' });
    this.gPills = svg('g', { class: 'pills' });
    this.build();
    const ro = new ResizeObserver(() => this.resize());
    ro.observe(/** @type {Element} */ (root.parentElement));
    this.resize();
  }

  build() {
    const defs = svg('defs');
    defs.innerHTML = `
      <pattern id="dotgrid" width="24" height="24" patternUnits="userSpaceOnUse">
        <circle cx="1" cy="1" r="1" class="grid-dot"/>
      </pattern>
      <radialGradient id="g-daemon" cx="50%" cy="30%" r="80%">
        <stop offset="0" class="daemon-hi"/><stop offset="1" class="daemon-lo"/>
      </radialGradient>
      <radialGradient id="g-tab" cx="50%" cy="30%" r="80%">
        <stop offset="0" class="tab-hi"/><stop offset="1" class="tab-lo"/>
      </radialGradient>
      <filter id="glow" x="-100%" y="-100%" width="300%" height="300%">
        <feGaussianBlur stdDeviation="4" result="b"/><feMerge><feMergeNode in="b"/><feMergeNode in="SourceGraphic"/></feMerge>
      </filter>`;
    this.root.append(defs);
    this.root.append(this.bg, this.gLinks, this.gPills, this.gComets, this.gNodes);
    this.bg.addEventListener('click', () => this.hideTip());
  }

  resize() {
    const r = /** @type {HTMLElement} */ (this.root.parentElement).getBoundingClientRect();
    if (r.width < 10 || r.height < 10) return;
    const first = this.nodes.size === 0;
    const sx = r.width / this.w;
    const sy = r.height / this.h;
    this.w = r.width;
    this.h = r.height;
    this.root.setAttribute('viewBox', `0 0 ${this.w} ${this.h}`);
    if (!first) for (const n of this.nodes.values()) ((n.x *= sx), (n.y *= sy));
    this.kick(0.3);
  }

  /** @param {import('./store.js').Store} store */
  update(store) {
    this.store = store;
    let changed = false;
    const seen = new Set();
    for (const n of store.ordered()) {
      seen.add(n.id);
      let g = this.nodes.get(n.id);
      if (g && g.kind !== kindOf(n)) {
        // learnt what it is (or lost it): redraw it with its shape, where it was
        const { x, y } = g;
        g.g.remove();
        this.nodes.delete(n.id);
        g = this.addNode(n, store);
        g.x = x;
        g.y = y;
      }
      if (!g) {
        g = this.addNode(n, store);
        changed = true;
      }
      this.drawNode(g, n, store);
    }
    for (const [id, g] of this.nodes) {
      if (seen.has(id)) continue;
      g.g.remove();
      this.nodes.delete(id);
      changed = true;
    }
    const seenLinks = new Set();
    for (const l of store.links.values()) {
      seenLinks.add(l.key);
      let g = this.links.get(l.key);
      if (!g) {
        g = this.addLink(l);
        changed = true;
      }
      if (g.transport !== l.transport) {
        g.transport = l.transport;
        this.styleLink(g);
      }
      g.rttMs = l.rttMs;
      g.g.setAttribute('data-rtt', l.rttMs == null ? '' : String(l.rttMs));
    }
    for (const [key, g] of this.links) {
      if (seenLinks.has(key)) continue;
      g.g.remove();
      g.pill.remove();
      this.links.delete(key);
      changed = true;
    }
    if (changed) this.kick(0.8);
    else this.place();
  }

  /** @param {any} n @param {import('./store.js').Store} store @returns {GNode} */
  addNode(n, store) {
    const isSelf = n.id === store.self;
    // start beside a node it links to, or the centre
    let x = this.w / 2;
    let y = this.h / 2;
    for (const l of store.links.values()) {
      const other = l.a === n.id ? l.b : l.b === n.id ? l.a : null;
      const o = other ? this.nodes.get(other) : undefined;
      if (o) {
        const ang = Math.random() * Math.PI * 2;
        x = o.x + Math.cos(ang) * 120;
        y = o.y + Math.sin(ang) * 120;
        break;
      }
    }
    if (!isSelf && this.nodes.size > 0 && x === this.w / 2) {
      x += (Math.random() - 0.5) * 200;
      y += (Math.random() - 0.5) * 200;
    }
    const kind = kindOf(n);
    const g = svg('g', { class: `node ${kind}`, 'data-node-id': n.id, 'data-kind': n.kind ?? kind, 'data-self': String(isSelf), tabindex: 0, role: 'button' });
    const halo = svg('circle', { class: 'halo', r: 40 });
    const dots = svg('g', { class: 'dots' });
    const shape = kind === 'tab'
      ? svg('circle', { class: 'shape', r: 24, fill: 'url(#g-tab)' })
      : svg('rect', { class: 'shape', x: -26, y: -26, width: 52, height: 52, rx: 14, fill: kind === 'daemon' ? 'url(#g-daemon)' : 'none' });
    const count = svg('text', { class: 'count', 'text-anchor': 'middle', dy: '0.36em' });
    const label = svg('text', { class: 'label', 'text-anchor': 'middle', y: 62 });
    const sub = svg('text', { class: 'sub', 'text-anchor': 'middle', y: 78 });
    g.append(halo, dots, shape, count, label, sub);
    if (isSelf) {
      const home = svg('text', { class: 'home', 'text-anchor': 'middle', y: -54 });
      home.textContent = 'THIS DAEMON';
      g.append(home);
    }
    this.gNodes.append(g);
    /** @type {GNode} */
    const gn = { id: n.id, x, y, vx: 0, vy: 0, pinned: false, g, dots, count, label, sub, halo, kind, sig: '' };
    this.nodes.set(n.id, gn);
    this.wireNode(gn);
    return gn;
  }

  /** @param {GNode} gn */
  wireNode(gn) {
    let drag = /** @type {{x: number, y: number, moved: boolean}|null} */ (null);
    gn.g.addEventListener('pointerdown', (e) => {
      const ev = /** @type {PointerEvent} */ (e);
      drag = { x: ev.clientX, y: ev.clientY, moved: false };
      gn.g.setPointerCapture(ev.pointerId);
    });
    gn.g.addEventListener('pointermove', (e) => {
      const ev = /** @type {PointerEvent} */ (e);
      if (drag === null) return;
      if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) > 4) drag.moved = true;
      if (!drag.moved) return;
      const p = this.toLocal(ev.clientX, ev.clientY);
      gn.x = p.x;
      gn.y = p.y;
      gn.pinned = true;
      this.kick(0.3);
    });
    gn.g.addEventListener('pointerup', () => {
      if (drag !== null && !drag.moved) this.onSelect(gn.id);
      drag = null;
    });
    gn.g.addEventListener('keydown', (e) => {
      const ev = /** @type {KeyboardEvent} */ (e);
      if (ev.key === 'Enter' || ev.key === ' ') this.onSelect(gn.id);
    });
    gn.g.addEventListener('pointerenter', (e) => this.showNodeTip(gn, /** @type {PointerEvent} */ (e)));
    gn.g.addEventListener('pointerleave', () => this.hideTip());
  }

  /** @param {number} cx @param {number} cy */
  toLocal(cx, cy) {
    const r = this.root.getBoundingClientRect();
    return { x: ((cx - r.left) / r.width) * this.w, y: ((cy - r.top) / r.height) * this.h };
  }

  /** @param {GNode} g @param {any} n @param {import('./store.js').Store} store */
  drawNode(g, n, store) {
    const live = n.processes?.live ?? 0;
    g.g.setAttribute('data-processes', String(live));
    g.g.classList.toggle('unreachable', Boolean(n.unreachable || n.ghost));
    g.g.classList.toggle('selected', this.selected === n.id);
    g.count.textContent = n.ghost || n.unreachable ? '?' : compact(live);
    g.label.textContent = n.kind === 'tab' ? `tab ${shortId(n.id)}` : nodeName(n);
    const spaces = (n.spaces ?? []).length;
    g.sub.textContent = n.ghost ? 'not reachable from here' : n.unreachable ? 'unreachable' : `${Math.round((n.load ?? 0) * 100)}% busy · ${compact(n.rates?.messages ?? 0)} msg/s${spaces ? ` · ${spaces} space${spaces > 1 ? 's' : ''}` : ''}`;
    // one dot per process (a ring), migrated ones pink, the newly arrived pulsing
    const shown = /** @type {any[]} */ (n.processes?.shown ?? []).slice(0, MAX_DOTS);
    const now = Date.now();
    const sig = shown.map((p) => `${p.pid}:${p.migrated ? 1 : 0}:${p.state}:${store.arrivedHere(p.pid, n.id, now) ? 1 : 0}`).join(',');
    if (sig === g.sig) return;
    g.sig = sig;
    g.dots.replaceChildren();
    const R = g.kind === 'tab' ? 33 : 38;
    const k = shown.length;
    shown.forEach((p, i) => {
      const a = -Math.PI / 2 + (i / Math.max(k, 12)) * Math.PI * 2;
      const arrived = store.arrivedHere(p.pid, n.id, now);
      const c = svg('circle', {
        class: `dot ${p.migrated ? 'migrated' : ''} ${arrived ? 'arrived' : ''} st-${String(p.state).split('-')[0]}`,
        cx: (Math.cos(a) * R).toFixed(1),
        cy: (Math.sin(a) * R).toFixed(1),
        r: arrived ? 4.2 : 3,
        'data-pid': p.pid,
      });
      g.dots.append(c);
    });
  }

  /** @param {import('./store.js').Link} l @returns {GLink} */
  addLink(l) {
    const g = svg('g', { class: 'link', 'data-a': l.a, 'data-b': l.b });
    const hit = svg('line', { class: 'hit' });
    const line = svg('line', { class: 'line' });
    g.append(line, hit);
    const pill = svg('g', { class: 'pill' });
    const pillRect = svg('rect', { rx: 8, height: 16, y: -8 });
    const pillText = svg('text', { 'text-anchor': 'middle', dy: '0.35em' });
    pill.append(pillRect, pillText);
    this.gLinks.append(g);
    this.gPills.append(pill);
    /** @type {GLink} */
    const gl = { key: l.key, a: l.a, b: l.b, g, line, hit, pill, pillText, transport: l.transport, rttMs: l.rttMs };
    this.styleLink(gl);
    const enter = (/** @type {Event} */ e) => this.showLinkTip(gl, /** @type {PointerEvent} */ (e));
    hit.addEventListener('pointerenter', enter);
    hit.addEventListener('pointermove', enter);
    hit.addEventListener('pointerleave', () => this.hideTip());
    pill.addEventListener('pointerenter', enter);
    pill.addEventListener('pointerleave', () => this.hideTip());
    this.links.set(l.key, gl);
    return gl;
  }

  /** @param {GLink} gl */
  styleLink(gl) {
    const rtc = gl.transport === 'webrtc';
    gl.g.setAttribute('data-transport', gl.transport);
    gl.g.classList.toggle('rtc', rtc);
    gl.g.classList.toggle('ws', !rtc);
    gl.pill.setAttribute('class', `pill ${rtc ? 'rtc' : 'ws'}`);
    gl.pillText.textContent = rtc ? 'WebRTC' : 'WS';
    const w = rtc ? 50 : 28;
    const rect = /** @type {SVGElement} */ (gl.pill.firstChild);
    rect.setAttribute('width', String(w));
    rect.setAttribute('x', String(-w / 2));
  }

  /** @param {GNode} gn @param {PointerEvent} e */
  showNodeTip(gn, e) {
    const n = this.store?.nodes.get(gn.id);
    if (!n) return;
    const rows = [
      `<b>${esc(nodeName(n))}</b>${n.id === this.store?.self ? ' <i>this daemon</i>' : ''}`,
      `<span>${esc(n.kind ?? 'node')} · ${esc(n.id)}</span>`,
    ];
    if (!n.ghost && !n.unreachable) {
      rows.push(`<span>${n.processes?.live ?? 0} processes · ${(n.spaces ?? []).length} spaces · ${Math.round((n.load ?? 0) * 100)}% busy</span>`);
      const c = n.counters ?? {};
      rows.push(`<span>in ${c.migrationsIn ?? 0} · out ${c.migrationsOut ?? 0} migrations · ${compact(c.messages ?? 0)} messages</span>`);
      rows.push('<span class="tip-hint">click: REPL on this node</span>');
    }
    this.tip(rows.join('<br>'), e);
  }

  /** @param {GLink} gl @param {PointerEvent} e */
  showLinkTip(gl, e) {
    const a = this.store?.nodes.get(gl.a);
    const b = this.store?.nodes.get(gl.b);
    const t = gl.transport === 'webrtc' ? 'WebRTC data channel' : gl.transport === 'tcp' ? 'TCP' : 'WebSocket';
    this.tip(`<b>${t}</b><br><span>${esc(nodeName(a))} ↔ ${esc(nodeName(b))}</span><br><span>round trip ${esc(rtt(/** @type {number} */ (gl.rttMs)))}</span>`, e);
  }

  /** @param {string} html @param {PointerEvent} e */
  tip(html, e) {
    const wrap = /** @type {HTMLElement} */ (this.root.parentElement).getBoundingClientRect();
    this.tooltip.innerHTML = html;
    this.tooltip.hidden = false;
    const x = Math.min(e.clientX - wrap.left + 14, wrap.width - this.tooltip.offsetWidth - 8);
    const y = Math.min(e.clientY - wrap.top + 14, wrap.height - this.tooltip.offsetHeight - 8);
    this.tooltip.style.transform = `translate(${Math.max(8, x)}px, ${Math.max(8, y)}px)`;
  }

  hideTip() {
    this.tooltip.hidden = true;
  }

  /** @param {string|null} id */
  select(id) {
    this.selected = id;
    for (const g of this.nodes.values()) g.g.classList.toggle('selected', g.id === id);
  }

  /**
   * A process moved: a comet from one node to the other, and the target flashes.
   * @param {{from: string, to: string, pid: string}} m
   */
  migrate(m) {
    const a = this.nodes.get(m.from);
    const b = this.nodes.get(m.to);
    if (!a || !b || document.hidden) return;
    const trail = svg('line', { class: 'comet-trail' });
    const head = svg('circle', { class: 'comet', r: 6.5, filter: 'url(#glow)' });
    this.gComets.append(trail, head);
    const t0 = performance.now();
    const dur = 950;
    const step = (/** @type {number} */ now) => {
      const u = Math.min(1, (now - t0) / dur);
      const e = u < 0.5 ? 2 * u * u : 1 - Math.pow(-2 * u + 2, 2) / 2;
      const x = a.x + (b.x - a.x) * e;
      const y = a.y + (b.y - a.y) * e;
      const back = Math.max(0, e - 0.22);
      head.setAttribute('data-progress', e.toFixed(2));
      head.setAttribute('cx', x.toFixed(1));
      head.setAttribute('cy', y.toFixed(1));
      trail.setAttribute('x1', (a.x + (b.x - a.x) * back).toFixed(1));
      trail.setAttribute('y1', (a.y + (b.y - a.y) * back).toFixed(1));
      trail.setAttribute('x2', x.toFixed(1));
      trail.setAttribute('y2', y.toFixed(1));
      if (u < 1) {
        requestAnimationFrame(step);
        return;
      }
      trail.remove();
      head.remove();
      b.g.classList.remove('flash');
      void (/** @type {any} */ (b.g).getBBox());
      b.g.classList.add('flash');
      setTimeout(() => b.g.classList.remove('flash'), 1200);
    };
    requestAnimationFrame(step);
  }

  // ------------------------------------------------------------ layout

  /** @param {number} alpha */
  kick(alpha) {
    this.alpha = Math.max(this.alpha, alpha);
    if (this.running) return;
    this.running = true;
    const frame = () => {
      this.simulate();
      this.place();
      this.alpha *= 0.975;
      if (this.alpha > 0.01) requestAnimationFrame(frame);
      else this.running = false;
    };
    requestAnimationFrame(frame);
  }

  simulate() {
    const ns = [...this.nodes.values()];
    const cx = this.w / 2;
    const cy = this.h / 2 - 6;
    const a = this.alpha;
    // links as long as the panel allows (it is wider than tall: spread sideways)
    const spring = Math.max(110, Math.min(420, Math.min(this.w * 0.9, this.h * 2.2) / (1 + Math.sqrt(ns.length) * 0.5)));
    for (let i = 0; i < ns.length; i++) {
      const p = ns[i];
      for (let j = i + 1; j < ns.length; j++) {
        const q = ns[j];
        let dx = p.x - q.x;
        let dy = p.y - q.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 1) {
          dx = Math.random() - 0.5;
          dy = Math.random() - 0.5;
          d2 = 1;
        }
        const d = Math.sqrt(d2);
        const f = (spring * spring * 0.9 * a) / d2;
        const fx = (dx / d) * Math.min(f, 40);
        const fy = (dy / d) * Math.min(f, 40);
        p.vx += fx;
        p.vy += fy;
        q.vx -= fx;
        q.vy -= fy;
      }
    }
    for (const l of this.links.values()) {
      const p = this.nodes.get(l.a);
      const q = this.nodes.get(l.b);
      if (!p || !q) continue;
      const dx = q.x - p.x;
      const dy = q.y - p.y;
      const d = Math.max(1, Math.hypot(dx, dy));
      const len = p.kind === 'daemon' && q.kind === 'daemon' ? spring * 1.3 : spring;
      const f = ((d - len) / d) * 0.06 * a;
      p.vx += dx * f;
      p.vy += dy * f;
      q.vx -= dx * f;
      q.vy -= dy * f;
    }
    const self = this.store?.self;
    for (const p of ns) {
      const g = p.id === self ? 0.05 : 0.012;
      // pulled harder vertically than sideways: the panel is wide, the graph spreads along it
      p.vx += (cx - p.x) * g * a * 0.5;
      p.vy += (cy - p.y) * g * a * 2;
      if (p.pinned) {
        p.vx = 0;
        p.vy = 0;
        continue;
      }
      p.vx *= 0.6;
      p.vy *= 0.6;
      p.x += p.vx;
      p.y += p.vy;
      p.x = Math.max(70, Math.min(this.w - 70, p.x));
      p.y = Math.max(64, Math.min(this.h - 88, p.y));
    }
  }

  place() {
    for (const n of this.nodes.values()) n.g.setAttribute('transform', `translate(${n.x.toFixed(1)},${n.y.toFixed(1)})`);
    for (const l of this.links.values()) {
      const p = this.nodes.get(l.a);
      const q = this.nodes.get(l.b);
      if (!p || !q) continue;
      for (const line of [l.line, l.hit]) {
        line.setAttribute('x1', p.x.toFixed(1));
        line.setAttribute('y1', p.y.toFixed(1));
        line.setAttribute('x2', q.x.toFixed(1));
        line.setAttribute('y2', q.y.toFixed(1));
      }
      l.pill.setAttribute('transform', `translate(${((p.x + q.x) / 2).toFixed(1)},${((p.y + q.y) / 2).toFixed(1)})`);
    }
    const empty = document.getElementById('graph-empty');
    if (empty) empty.hidden = this.nodes.size > 0;
  }
}

/** @param {any} n a node snapshot @returns {'daemon'|'tab'|'unknown'} the shape it is drawn with */
function kindOf(n) {
  return n.ghost || n.kind === 'unknown' || n.kind === undefined ? 'unknown' : n.kind === 'tab' ? 'tab' : 'daemon';
}

/** @param {string} s */
function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}
