// @ts-check
/**
 * Waiting remote `in`s and `rd`s without a process (docs/linda.md, "Across nodes"): an
 * operation from another node that finds no tuple, and waits with no timeout, is
 * recorded at the home as a **waiter record** — its template, its priority and what to
 * do with a tuple — and the matching `out` answers it from its own path: no helper
 * process, no scheduler hop between the `out` and the reply.
 *
 * Invariants:
 *  - a record is served only by a tuple put into its space after it was recorded (at
 *    recording the space had no match): serveRecords runs after every tuple that enters
 *    a space with records (space-table.js putTuple, and tuples put back);
 *  - the core serves its own waiters first (the node's own processes,
 *    inside `outBytes`); then every recorded `rd` whose template matches the new tuple
 *    gets a copy, and the first recorded `in` — by priority (0 first), then arrival —
 *    that finds a match in the space withdraws it: one `out` feeds at most one `in`;
 *  - a record answered or dropped is out of the list; the lists hold only waiting records.
 */

/**
 * @typedef {object} WaiterRecord
 * @property {string} name the space
 * @property {Uint8Array} template
 * @property {boolean} remove an `in` (else an `rd`)
 * @property {number} priority 0..3
 * @property {number} seq arrival order
 * @property {(bytes: Uint8Array) => void} answer hands the tuple over (the record is already dropped)
 */

let seq = 0;

/** The records of the node's spaces, by space name. @param {any} node @returns {Map<string, WaiterRecord[]>} */
function recordsOf(node) {
  const t = node.spaceTable;
  if (t.records === undefined) t.records = new Map();
  return t.records;
}

/**
 * Record a waiting operation (its space had no match just now).
 * @param {any} node @param {Omit<WaiterRecord, 'seq'>} r
 */
export function addRecord(node, r) {
  const rec = /** @type {WaiterRecord} */ (r);
  rec.seq = ++seq;
  const all = recordsOf(node);
  let list = all.get(rec.name);
  if (list === undefined) all.set(rec.name, (list = []));
  let i = list.length;
  while (i > 0 && list[i - 1].priority > rec.priority) i--; // by priority, then arrival
  list.splice(i, 0, rec);
  return rec;
}

/** Drop a record (answered, cancelled, or its node gone). @param {any} node @param {WaiterRecord} rec */
export function dropRecord(node, rec) {
  const all = recordsOf(node);
  const list = all.get(rec.name);
  if (list === undefined) return;
  const i = list.indexOf(rec);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) all.delete(rec.name);
}

/**
 * A tuple entered `space` (the core has served its own waiters): answer the records it
 * matches — every `rd` with a copy, then one `in` with a match it withdraws. By the
 * first invariant no other tuple of the space matches a waiting record, so an `in`
 * record is tried straight on the space (one core call, the tuple copied out once); only
 * `rd` records, which must see the tuple even when an `in` takes it, are matched in the
 * scratch space.
 * @param {any} node @param {string} name @param {any} space its core space @param {Uint8Array} bytes the new tuple
 */
export function serveRecords(node, name, space, bytes) {
  const all = node.spaceTable.records;
  const list = all?.get(name);
  if (list === undefined) return;
  let readers = 0;
  for (const rec of list) if (!rec.remove) readers++;
  if (readers > 0) serveReaders(node, list, bytes);
  for (const rec of list) { // the first `in` served ends the loop: no record is dropped during it
    if (!rec.remove) continue;
    const r = takeFor(space, rec.template); // the new tuple, unless a waiter of the core took it
    if (r === undefined) continue;
    dropRecord(node, rec);
    rec.answer(r);
    return;
  }
}

/**
 * Every recorded `rd` the tuple matches gets a copy (matched in the scratch space).
 * @param {any} node @param {WaiterRecord[]} list @param {Uint8Array} bytes
 */
function serveReaders(node, list, bytes) {
  const scratch = scratchSpace(node);
  scratch.outBytes(bytes);
  /** @type {WaiterRecord[]} */
  const hits = [];
  try {
    for (const rec of list) {
      if (!rec.remove && matches(scratch, rec.template)) hits.push(rec);
    }
  } finally {
    clearScratch(node, scratch, bytes);
  }
  for (const rec of hits) {
    dropRecord(node, rec);
    rec.answer(bytes);
  }
}

/** A record's `in` tried on the space (a template the core refuses takes nothing). @param {any} space @param {Uint8Array} template */
function takeFor(space, template) {
  try {
    return space.inpBytes(template);
  } catch {
    return undefined;
  }
}

/** @param {any} scratch @param {Uint8Array} template */
function matches(scratch, template) {
  try {
    return scratch.countBytes(template) > 0;
  } catch {
    return false; // a template the core refuses matches nothing
  }
}

/**
 * Take the tuple back out of the scratch space, by its exact bytes (a tuple holding
 * formals, S/Net, included); should it not be there, the scratch space is dropped for a
 * new one.
 * @param {any} node @param {any} scratch @param {Uint8Array} bytes
 */
export function clearScratch(node, scratch, bytes) {
  if (scratch.removeExactBytes(bytes)) return;
  scratch.destroy();
  node.scratchSpace = undefined;
}

/** The node's scratch core space: one tuple matched against templates, then removed. @param {any} node */
export function scratchSpace(node) {
  if (node.scratchSpace === undefined) node.scratchSpace = node.core.createSpace();
  return node.scratchSpace;
}
