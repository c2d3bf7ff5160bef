// @ts-check
/**
 * Where the logical view draws things (docs/dashboard.md, "The logical view"): one box
 * per physical node that hosts logical nodes (side by side, in a grid when there are
 * many), and inside each box its logical nodes, placed by a small force layout
 * (springs along the links between nodes of the same box, repulsion between all of
 * them, a pull to the box's centre) seeded on a grid in the order the nodes were listed.
 *
 * Positions are kept per logical address as fractions of their box, so a node stays
 * where it was when the window is resized or another node appears; the layout runs
 * only when the set of nodes or links of a box changed (its signature), for a bounded
 * number of rounds (ROUNDS), never per frame.
 */

const ROUNDS = 120;
/** The inner margin of a box, as a fraction of its side. */
const MARGIN = 0.1;

/** @typedef {{x: number, y: number, w: number, h: number}} Rect */
/** @typedef {{address: string, links: {to: string}[]}} LNode */

/**
 * The boxes of `count` physical nodes in a `w`×`h` area.
 * @param {number} count @param {number} w @param {number} h @returns {Rect[]}
 */
export function boxes(count, w, h) {
  if (count === 0) return [];
  const cols = count <= 3 ? count : Math.ceil(Math.sqrt(count * (w / Math.max(1, h))));
  const rows = Math.ceil(count / cols);
  const pad = 14;
  const bw = (w - pad * (cols + 1)) / cols;
  const bh = (h - pad * (rows + 1)) / rows;
  return Array.from({ length: count }, (_, i) => ({ x: pad + (i % cols) * (bw + pad), y: pad + Math.floor(i / cols) * (bh + pad), w: bw, h: bh }));
}

export class LogicalLayout {
  constructor() {
    /** @type {Map<string, {x: number, y: number}>} address → position in its box, in [0, 1]² */
    this.at = new Map();
    /** @type {Map<string, string>} physical node id → the signature its layout was made for */
    this.sigs = new Map();
  }

  /**
   * The position of every node of one box, in [0, 1]² (laid out again if it changed).
   * @param {string} host the physical node's id @param {LNode[]} nodes @param {number} aspect the box's width / height
   */
  place(host, nodes, aspect) {
    const sig = nodes.map((n) => `${n.address}>${n.links.map((k) => k.to).join(',')}`).join(';');
    if (this.sigs.get(host) === sig) return;
    this.sigs.set(host, sig);
    const cols = Math.max(1, Math.ceil(Math.sqrt(nodes.length * aspect)));
    const rows = Math.max(1, Math.ceil(nodes.length / cols));
    const pts = nodes.map((n, i) => {
      const p = this.at.get(n.address) ?? { x: (i % cols + 0.5) / cols, y: (Math.floor(i / cols) + 0.5) / rows };
      return { x: p.x, y: p.y };
    });
    relax(nodes, pts, aspect);
    nodes.forEach((n, i) => this.at.set(n.address, pts[i]));
    const live = new Set(nodes.map((n) => n.address));
    for (const a of this.at.keys()) if (a.startsWith(`@${host}/`) && !live.has(a)) this.at.delete(a);
  }

  /** Forget the boxes of physical nodes no longer shown. @param {Set<string>} hosts */
  keep(hosts) {
    for (const h of this.sigs.keys()) if (!hosts.has(h)) this.sigs.delete(h);
    for (const a of this.at.keys()) if (!hosts.has(a.slice(1, a.indexOf('/')))) this.at.delete(a);
  }

  /**
   * A node's position in the drawing: its box and its place in it.
   * @param {string} address @param {Rect} box @returns {{x: number, y: number}}
   */
  point(address, box) {
    const p = this.at.get(address) ?? { x: 0.5, y: 0.5 };
    const m = MARGIN;
    return { x: box.x + box.w * (m + p.x * (1 - 2 * m)), y: box.y + 46 + (box.h - 52) * (m + p.y * (1 - 2 * m)) };
  }
}

/**
 * A bounded force layout in the unit square (x scaled by `aspect` so distances are
 * those of the box): repulsion between every pair, springs along links inside the box.
 * @param {LNode[]} nodes @param {{x: number, y: number}[]} pts @param {number} aspect
 */
function relax(nodes, pts, aspect) {
  const n = nodes.length;
  if (n < 2) return;
  const index = new Map(nodes.map((x, i) => [x.address, i]));
  /** @type {[number, number][]} */
  const springs = [];
  nodes.forEach((x, i) => {
    for (const k of x.links) {
      const j = index.get(k.to);
      if (j !== undefined && j > i) springs.push([i, j]);
    }
  });
  const ideal = 0.75 / Math.sqrt(n);
  const rounds = n > 150 ? ROUNDS / 3 : ROUNDS;
  for (let r = 0; r < rounds; r++) {
    const step = 0.1 * (1 - r / rounds);
    const dx = new Float64Array(n);
    const dy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let ex = (pts[i].x - pts[j].x) * aspect;
        let ey = pts[i].y - pts[j].y;
        const d2 = ex * ex + ey * ey || 1e-6;
        const f = (ideal * ideal) / d2;
        ex *= f;
        ey *= f;
        dx[i] += ex;
        dy[i] += ey;
        dx[j] -= ex;
        dy[j] -= ey;
      }
    }
    for (const [i, j] of springs) {
      const ex = (pts[j].x - pts[i].x) * aspect;
      const ey = pts[j].y - pts[i].y;
      const d = Math.sqrt(ex * ex + ey * ey) || 1e-6;
      const f = d / ideal;
      dx[i] += ex * f;
      dy[i] += ey * f;
      dx[j] -= ex * f;
      dy[j] -= ey * f;
    }
    for (let i = 0; i < n; i++) {
      // a pull to the centre, so repulsion does not pile nodes up against the walls
      dx[i] += (0.5 - pts[i].x) * aspect * 0.6;
      dy[i] += (0.5 - pts[i].y) * 0.6;
      const len = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) || 1;
      const move = Math.min(len, step);
      pts[i].x = Math.max(0, Math.min(1, pts[i].x + (dx[i] / len) * move / aspect));
      pts[i].y = Math.max(0, Math.min(1, pts[i].y + (dy[i] / len) * move));
    }
  }
}
