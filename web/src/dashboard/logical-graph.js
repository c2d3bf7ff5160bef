// @ts-check
/**
 * The logical view (SVG): the logical network of messengers over the physical mesh
 * (docs/dashboard.md, "The logical view"). Each physical node that hosts logical nodes
 * is a box (amber edge for a daemon, blue for a tab) titled with its name and counts of
 * logical nodes and messengers; inside, its
 * logical nodes as small circles with their names, the number of messengers on each in
 * a badge; the logical links between them as lines labelled with their weights (dashed
 * when they cross to another physical node, with an arrow when directed). When a
 * node's count of messengers grows between two samples, a dot flies to it along a link
 * from a node linked to it (preferring one whose messengers fell: the hop seen), and
 * the node flashes.
 *
 * It draws what the samples carry (each node's `logical` field: at most 256 logical
 * nodes and 1024 links per physical node; a box says when it shows fewer than there
 * are). Every element carries data attributes the e2e tests read: boxes data-host,
 * data-total; logical nodes data-address, data-name, data-messengers; links data-from,
 * data-to, data-weight, data-name.
 *
 * Invariants: elements are kept by key (address, pair of addresses) and updated in
 * place, not rebuilt per sample; at most MAX_FLIGHTS hop animations start per sample.
 */
import { svg, nodeName } from './format.js';
import { LogicalLayout, boxes } from './logical-layout.js';

const MAX_FLIGHTS = 24;
const FLIGHT_MS = 450;

/** @param {any} x a name or weight as the sample gives it @returns {string} */
const text = (x) => (x === null || x === undefined ? '' : String(x));

export class LogicalGraph {
  /** @param {SVGSVGElement} root @param {HTMLElement} empty shown when no node hosts logical nodes */
  constructor(root, empty) {
    this.root = root;
    this.empty = empty;
    this.layout = new LogicalLayout();
    this.w = 800;
    this.h = 500;
    this.gBoxes = svg('g', { class: 'lboxes' });
    this.gLinks = svg('g', { class: 'llinks' });
    this.gNodes = svg('g', { class: 'lnodes' });
    this.gFlights = svg('g', { class: 'lflights' });
    const defs = svg('defs');
    defs.innerHTML = '<marker id="larrow" viewBox="0 0 8 8" refX="14" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 8 4 0 8z" class="larrow"/></marker>'
      + '<filter id="lglow" x="-100%" y="-100%" width="300%" height="300%"><feGaussianBlur stdDeviation="3" result="b"/><feMerge><feMergeNode in="b"/><feMergeNode in="SourceGraphic"/></feMerge></filter>';
    root.append(defs, this.gBoxes, this.gLinks, this.gNodes, this.gFlights);
    /** @type {Map<string, SVGElement>} */
    this.boxEls = new Map();
    /** @type {Map<string, {g: SVGElement, dot: SVGElement, name: SVGElement, badge: SVGElement, x: number, y: number, messengers: number}>} */
    this.nodeEls = new Map();
    /** @type {Map<string, {g: SVGElement, line: SVGElement, weight: SVGElement}>} */
    this.linkEls = new Map();
    /** @type {any} the last store drawn */
    this.store = null;
    this.visible = false;
    new ResizeObserver(() => this.resize()).observe(/** @type {Element} */ (root.parentElement));
  }

  resize() {
    const r = /** @type {HTMLElement} */ (this.root.parentElement).getBoundingClientRect();
    if (r.width < 10 || r.height < 10) return;
    this.w = r.width;
    this.h = r.height;
    this.root.setAttribute('viewBox', `0 0 ${this.w} ${this.h}`);
    if (this.store !== null) this.draw(this.store, false);
  }

  /** @param {boolean} on */
  show(on) {
    this.visible = on;
    this.root.toggleAttribute('hidden', !on);
    if (on) this.resize();
    this.empty.hidden = !on || this.hostsOf(this.store).length > 0;
  }

  /** @param {any} store @returns {any[]} the physical nodes that host logical nodes */
  hostsOf(store) {
    return store === null ? [] : store.ordered().filter((/** @type {any} */ n) => !n.unreachable && !n.ghost && n.logical && n.logical.nodes.length > 0);
  }

  /** A new sample. @param {any} store */
  update(store) {
    this.store = store;
    this.draw(store, true);
  }

  /** @param {any} store @param {boolean} fresh a new sample (animate what changed) */
  draw(store, fresh) {
    const hosts = this.hostsOf(store);
    this.empty.hidden = !this.visible || hosts.length > 0;
    const rects = boxes(hosts.length, this.w, this.h);
    this.layout.keep(new Set(hosts.map((n) => n.id)));
    /** @type {Map<string, {x: number, y: number, host: string}>} */
    const where = new Map();
    hosts.forEach((n, i) => {
      this.drawBox(n, rects[i], store);
      this.layout.place(n.id, n.logical.nodes, rects[i].w / Math.max(1, rects[i].h));
      for (const ln of n.logical.nodes) where.set(ln.address, { ...this.layout.point(ln.address, rects[i]), host: n.id });
    });
    for (const [id, el] of this.boxEls) if (!hosts.some((n) => n.id === id)) (el.remove(), this.boxEls.delete(id));
    const { grown, shrunk } = this.drawNodes(hosts, where);
    this.drawLinks(hosts, where);
    if (fresh && this.visible) this.fly(grown, shrunk, hosts, where);
  }

  /** @param {any} n @param {import('./logical-layout.js').Rect} r @param {any} store */
  drawBox(n, r, store) {
    let g = this.boxEls.get(n.id);
    if (g === undefined) {
      g = svg('g', { class: `lbox ${n.kind === 'tab' ? 'tab' : 'daemon'}`, 'data-host': n.id });
      g.append(svg('rect', { class: 'lbox-frame', rx: 12 }), svg('text', { class: 'lbox-title', x: 12, y: 20 }), svg('text', { class: 'lbox-sub', x: 12, y: 36 }));
      this.gBoxes.append(g);
      this.boxEls.set(n.id, g);
    }
    const l = n.logical;
    const messengers = l.nodes.reduce((s, /** @type {any} */ x) => s + (x.messengers ?? 0), 0);
    g.setAttribute('transform', `translate(${r.x},${r.y})`);
    g.setAttribute('data-total', String(l.total?.nodes ?? l.nodes.length));
    const [frame, title, sub] = /** @type {SVGElement[]} */ ([...g.children]);
    frame.setAttribute('width', String(r.w));
    frame.setAttribute('height', String(r.h));
    title.textContent = `${n.kind === 'tab' ? 'TAB' : 'DAEMON'} ${nodeName(n)}${n.id === store.self ? ' · this daemon' : ''}`;
    const total = l.total?.nodes ?? l.nodes.length;
    sub.textContent = `${total > l.nodes.length ? `${l.nodes.length} of ${total}` : total} logical node${total === 1 ? '' : 's'} · ${messengers} messenger${messengers === 1 ? '' : 's'}`;
  }

  /**
   * @param {any[]} hosts @param {Map<string, {x: number, y: number, host: string}>} where
   * @returns {{grown: string[], shrunk: Set<string>}} the addresses whose messengers grew
   *   and fell since the last sample
   */
  drawNodes(hosts, where) {
    /** @type {string[]} */
    const grown = [];
    /** @type {Set<string>} */
    const shrunk = new Set();
    const seen = new Set();
    for (const n of hosts) {
      for (const ln of n.logical.nodes) {
        const p = /** @type {{x: number, y: number}} */ (where.get(ln.address));
        seen.add(ln.address);
        let e = this.nodeEls.get(ln.address);
        if (e === undefined) {
          const g = svg('g', { class: 'lnode', 'data-address': ln.address, 'data-name': text(ln.name) });
          const dot = svg('circle', { class: 'lnode-dot', r: 6 });
          const name = svg('text', { class: 'lnode-name', 'text-anchor': 'middle', y: 17 });
          const badge = svg('text', { class: 'lnode-badge', 'text-anchor': 'middle', y: -10 });
          name.textContent = text(ln.name) || ln.address.slice(ln.address.indexOf('/'));
          const tip = svg('title');
          tip.textContent = `logical node ${text(ln.name) || '(no name)'} ${ln.address}`;
          g.append(tip, dot, name, badge);
          this.gNodes.append(g);
          e = { g, dot, name, badge, x: p.x, y: p.y, messengers: 0 };
          this.nodeEls.set(ln.address, e);
        }
        const m = ln.messengers ?? 0;
        if (m > e.messengers) grown.push(ln.address);
        else if (m < e.messengers) shrunk.add(ln.address);
        e.messengers = m;
        e.x = p.x;
        e.y = p.y;
        e.g.setAttribute('transform', `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`);
        e.g.setAttribute('data-messengers', String(m));
        e.g.classList.toggle('busy', m > 0);
        e.dot.setAttribute('r', String(m > 0 ? 6 + Math.min(6, Math.sqrt(m) * 1.5) : 6));
        e.badge.textContent = m > 0 ? String(m) : '';
      }
    }
    for (const [a, e] of this.nodeEls) if (!seen.has(a)) (e.g.remove(), this.nodeEls.delete(a));
    return { grown, shrunk };
  }

  /** @param {any[]} hosts @param {Map<string, {x: number, y: number, host: string}>} where */
  drawLinks(hosts, where) {
    /** @type {Map<string, {from: string, to: string, name: any, weight: any, both: boolean}>} */
    const pairs = new Map();
    for (const n of hosts) {
      for (const ln of n.logical.nodes) {
        for (const k of ln.links) {
          if (!where.has(k.to)) continue; // its other end is not in the samples
          const key = ln.address < k.to ? `${ln.address}|${k.to}|${text(k.name)}` : `${k.to}|${ln.address}|${text(k.name)}`;
          const seen = pairs.get(key);
          if (seen) seen.both = true;
          else pairs.set(key, { from: ln.address, to: k.to, name: k.name, weight: k.weight, both: false });
        }
      }
    }
    for (const [key, k] of pairs) {
      let e = this.linkEls.get(key);
      if (e === undefined) {
        const g = svg('g', { class: 'llink', 'data-from': k.from, 'data-to': k.to, 'data-name': text(k.name), 'data-weight': text(k.weight) });
        const line = svg('line', { class: 'llink-line' });
        const weight = svg('text', { class: 'llink-weight', 'text-anchor': 'middle', dy: '-0.3em' });
        weight.textContent = text(k.weight);
        const tip = svg('title');
        tip.textContent = `link ${text(k.name) || '(no name)'}${k.weight !== null ? `, weight ${text(k.weight)}` : ''}`;
        g.append(tip, line, weight);
        this.gLinks.append(g);
        e = { g, line, weight };
        this.linkEls.set(key, e);
      }
      const a = /** @type {{x: number, y: number, host: string}} */ (where.get(k.from));
      const b = /** @type {{x: number, y: number, host: string}} */ (where.get(k.to));
      e.g.classList.toggle('remote', a.host !== b.host);
      e.g.classList.toggle('directed', !k.both);
      if (k.both) e.line.removeAttribute('marker-end');
      else e.line.setAttribute('marker-end', 'url(#larrow)');
      for (const [attr, v] of /** @type {[string, number][]} */ ([['x1', a.x], ['y1', a.y], ['x2', b.x], ['y2', b.y]])) e.line.setAttribute(attr, v.toFixed(1));
      e.weight.setAttribute('x', ((a.x + b.x) / 2).toFixed(1));
      e.weight.setAttribute('y', ((a.y + b.y) / 2).toFixed(1));
    }
    for (const [key, e] of this.linkEls) if (!pairs.has(key)) (e.g.remove(), this.linkEls.delete(key));
  }

  /**
   * A dot flying to each node whose messengers grew, from a node linked to it (one whose
   * messengers fell, if there is one: where the hop most likely came from), and a flash
   * of the node.
   * @param {string[]} grown @param {Set<string>} shrunk @param {any[]} hosts
   * @param {Map<string, {x: number, y: number, host: string}>} where
   */
  fly(grown, shrunk, hosts, where) {
    /** @type {Map<string, string[]>} address → addresses linking to it */
    const into = new Map();
    for (const n of hosts) for (const ln of n.logical.nodes) for (const k of ln.links) (into.get(k.to) ?? into.set(k.to, []).get(k.to))?.push(ln.address);
    for (const addr of grown.slice(0, MAX_FLIGHTS)) {
      const e = this.nodeEls.get(addr);
      if (!e) continue;
      e.g.classList.remove('flash');
      e.g.getBoundingClientRect(); // restart the flash
      e.g.classList.add('flash');
      const sources = into.get(addr) ?? [];
      const source = sources.find((a) => shrunk.has(a) && where.has(a)) ?? sources.find((a) => where.has(a));
      const from = source === undefined ? undefined : where.get(source);
      if (from === undefined) continue;
      const dot = svg('circle', { class: 'lflight', r: 4, cx: 0, cy: 0 });
      this.gFlights.append(dot);
      const anim = dot.animate([{ transform: `translate(${from.x}px, ${from.y}px)` }, { transform: `translate(${e.x}px, ${e.y}px)` }], { duration: FLIGHT_MS, easing: 'ease-in-out' });
      anim.onfinish = () => dot.remove();
      anim.oncancel = () => dot.remove();
    }
  }
}
