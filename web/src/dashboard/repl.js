// @ts-check
/**
 * The REPL: evaluates Scheme text on the chosen node through POST /api/eval, with the
 * daemon's dashboard secret (the page's `<meta name="termite-eval-secret">`, put there
 * by the daemon that served it) in the X-Termite-Eval header. Enter evaluates (an
 * incomplete expression gets a new line instead), Shift+Enter inserts a line, ↑/↓ walk
 * the history (kept in localStorage). Each entry shows the node, the input, and the
 * outputs or the error.
 */
import { el, nodeName, shortId } from './format.js';

const HISTORY_KEY = 'termite-mesh.repl.history';
const HISTORY_MAX = 200;

export class Repl {
  /**
   * @param {{out: HTMLElement, form: HTMLFormElement, input: HTMLTextAreaElement, select: HTMLSelectElement, clear: HTMLElement, prompt: HTMLElement}} dom
   * @param {{onTarget: (id: string) => void}} opts
   */
  constructor(dom, opts) {
    this.dom = dom;
    this.onTarget = opts.onTarget;
    /** @type {string[]} */
    this.history = loadHistory();
    this.pos = this.history.length;
    this.draft = '';
    this.busy = false;
    /** @type {string|null} */
    this.target = null;
    /** the daemon's dashboard secret: what lets this page evaluate */
    this.secret = document.querySelector('meta[name="termite-eval-secret"]')?.getAttribute('content') ?? '';
    dom.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit();
    });
    dom.input.addEventListener('keydown', (e) => this.key(e));
    dom.input.addEventListener('input', () => this.autosize());
    dom.select.addEventListener('change', () => {
      this.target = dom.select.value;
      this.onTarget(this.target);
    });
    dom.clear.addEventListener('click', () => dom.out.replaceChildren());
    this.greet();
  }

  greet() {
    this.dom.out.append(
      el('div', { class: 'entry note' }, el('span', { text: 'Evaluate Scheme on this daemon or on a tab it served: pick it here or click it in the graph. Try ' }), el('code', { text: '(mesh-nodes)' }), el('span', { text: ' or ' }), el('code', { text: "(spawn (lambda () (migrate (car (mesh-nodes)))))" }), el('span', { text: '.' })),
    );
  }

  /**
   * Refresh the node list (keeps the choice while that node exists).
   * @param {import('./store.js').Store} store
   */
  setNodes(store) {
    const nodes = store.ordered().filter((n) => !n.ghost && !n.unreachable);
    const sel = this.dom.select;
    const want = this.target ?? store.self;
    // another daemon evaluates only for its own dashboard: listed, not selectable
    const usable = (/** @type {any} */ n) => n.id === store.self || n.kind === 'tab';
    const sig = nodes.map((n) => `${n.id}:${n.address}`).join(',');
    if (sel.dataset.sig !== sig) {
      sel.dataset.sig = sig;
      sel.replaceChildren(
        ...nodes.map((n) =>
          el('option', {
            value: n.id,
            disabled: !usable(n),
            text: `${n.kind === 'tab' ? `tab ${shortId(n.id)}` : nodeName(n)}${n.id === store.self ? ' (this daemon)' : usable(n) ? '' : ' — use its own dashboard'}`,
          }),
        ),
      );
    }
    if (want && nodes.some((n) => n.id === want && usable(n))) sel.value = want;
    else if (store.self) sel.value = store.self;
    this.target = sel.value || null;
  }

  /** @param {string} id */
  choose(id) {
    if (![...this.dom.select.options].some((o) => o.value === id && !o.disabled)) return;
    this.target = id;
    this.dom.select.value = id;
  }

  /** @param {KeyboardEvent} e */
  key(e) {
    const ta = this.dom.input;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void this.submit();
      return;
    }
    const before = ta.value.slice(0, ta.selectionStart);
    const after = ta.value.slice(ta.selectionEnd);
    if (e.key === 'ArrowUp' && !before.includes('\n') && this.pos > 0) {
      e.preventDefault();
      if (this.pos === this.history.length) this.draft = ta.value;
      this.pos--;
      this.set(this.history[this.pos]);
    } else if (e.key === 'ArrowDown' && !after.includes('\n') && this.pos < this.history.length) {
      e.preventDefault();
      this.pos++;
      this.set(this.pos === this.history.length ? this.draft : this.history[this.pos]);
    }
  }

  /** @param {string} text */
  set(text) {
    const ta = this.dom.input;
    ta.value = text;
    ta.selectionStart = ta.selectionEnd = text.length;
    this.autosize();
  }

  autosize() {
    const ta = this.dom.input;
    ta.style.height = 'auto';
    ta.style.height = `${Math.min(ta.scrollHeight, 140)}px`;
  }

  async submit() {
    const ta = this.dom.input;
    const code = ta.value;
    if (code.trim() === '' || this.busy) return;
    const node = this.target ?? this.dom.select.value;
    const name = this.dom.select.selectedOptions[0]?.textContent ?? shortId(node);
    const kind = name.startsWith('tab ') ? 'tab' : 'daemon';
    this.busy = true;
    this.dom.form.classList.add('busy');
    const entry = el('div', { class: 'entry pending', dataset: { node, kind, status: 'pending' } });
    entry.append(el('div', { class: 'in' }, el('span', { class: 'at', text: `${name.replace(/ \(this daemon\)$/, '')} ›` }), el('pre', { text: code })));
    this.dom.out.append(entry);
    this.dom.out.scrollTop = this.dom.out.scrollHeight;
    let r;
    try {
      const res = await fetch('/api/eval', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-termite-eval': this.secret },
        body: JSON.stringify({ node, code }),
      });
      r = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
    } catch (e) {
      r = { ok: false, error: `the daemon did not answer: ${e instanceof Error ? e.message : e}` };
    } finally {
      this.busy = false;
      this.dom.form.classList.remove('busy');
    }
    if (r.incomplete) {
      entry.remove();
      // an unfinished expression: keep typing on a new line
      const pos = ta.selectionStart;
      ta.value = `${code.slice(0, pos)}\n${code.slice(pos)}`;
      ta.selectionStart = ta.selectionEnd = pos + 1;
      this.autosize();
      return;
    }
    this.remember(code);
    ta.value = '';
    this.autosize();
    const outputs = /** @type {string[]} */ (r.outputs ?? []);
    const status = r.ok ? 'ok' : 'error';
    entry.classList.remove('pending');
    entry.classList.add(status);
    entry.dataset.status = status;
    if (r.error) entry.append(el('pre', { class: 'out err', text: r.error }));
    outputs.forEach((o, i) => entry.append(el('pre', { class: `out ${!r.ok && i === outputs.length - 1 ? 'err' : 'ok'}`, text: o })));
    if (!r.error && outputs.length === 0) entry.append(el('pre', { class: 'out none', text: r.ok ? '; no value' : '; failed' }));
    if (typeof r.ms === 'number') entry.append(el('span', { class: 'ms', text: `${r.ms} ms` }));
    while (this.dom.out.children.length > 300) this.dom.out.firstChild?.remove();
    this.dom.out.scrollTop = this.dom.out.scrollHeight;
  }

  /** @param {string} code */
  remember(code) {
    if (this.history[this.history.length - 1] !== code) this.history.push(code);
    if (this.history.length > HISTORY_MAX) this.history.splice(0, this.history.length - HISTORY_MAX);
    this.pos = this.history.length;
    this.draft = '';
    try {
      localStorage.setItem(HISTORY_KEY, JSON.stringify(this.history));
    } catch {
      // storage full or disabled: history lasts for this page only
    }
  }
}

/** @returns {string[]} */
function loadHistory() {
  try {
    const h = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]');
    return Array.isArray(h) ? h.filter((x) => typeof x === 'string').slice(-HISTORY_MAX) : [];
  } catch {
    return [];
  }
}
