// @ts-check
/**
 * Members of a distributed space that go away and come back (docs/linda.md,
 * "Partitions"): the DTS protocol's side of the mesh's peer:down and peer:up
 * (dts-protocol.js has the messages).
 *
 * Invariants:
 *  - the tuples a member that went away owned pass to one heir, the same at every
 *    replica (the home, or with the home gone the member with the smallest id), so no
 *    tuple is withdrawable by two nodes;
 *  - an ownership request waiting on it is asked again of the heir, or served when the
 *    heir is this node; a join waiting on it is not waited for any more;
 *  - a member that comes back is first told what this node adopted from it and still
 *    owns (adoption wins), then which tuples this replica holds, so each side repairs
 *    what it missed.
 */
import { F_DTS, D_CHOWN_REQ, D_ACCESS, D_REPAIR_ACK, joinAnswered, wakeJoiners } from './dts-protocol.js';
import { dtsSend } from './dts-batch.js';

/** @typedef {import('./dts-replica.js').Replica} Replica */

/**
 * A node went away: it is no longer a member; the tuples it owned pass to the adopter,
 * and an ownership request waiting on it is asked again of the new owner (or, the new
 * owner being this node, served) — also when it was no member here (a tuple learned
 * from a third node may name an owner that left first). A join waiting on a home that
 * left goes on with what this replica has.
 * @param {any} d a Distribution @param {string} id
 */
export function dtsPeerDown(d, id) {
  const all = d.node.dtsReplicas;
  if (all === undefined) return;
  const self = d.node.id;
  for (const rep of /** @type {Map<string, Replica>} */ (all).values()) {
    if (rep.members.has(id)) {
      rep.members.delete(id);
      if (rep.departed.size < 4096) rep.departed.add(id);
    } else if (!ownsOrAsked(rep, id)) {
      continue; // not a member, and nothing here is its (a tuple may name an owner that left before this replica heard of it)
    }
    const heir = adopter(rep, id);
    for (const t of rep.tuples.values()) {
      if (t.owner !== id) continue;
      rep.setOwner(t, heir);
      if (heir === self) t.adoptedFrom = id;
    }
    for (const k of [...rep.remoteIns.keys()]) if (rep.remoteIns.get(k)?.from === id) rep.dropRemoteIn(k);
    rep.pendingChown.forEach((q, k) => rep.pendingChown.set(k, q.filter((x) => x !== id)));
    for (const [tid, a] of [...rep.acquiring]) {
      if (a.asked !== id) continue;
      if (heir === self) {
        rep.acquiring.delete(tid);
        a.settle(true);
      } else {
        a.asked = heir;
        dtsSend(d, heir, [F_DTS, D_CHOWN_REQ, rep.name, tid, a.template ?? false]);
      }
    }
    if (id === rep.home && !rep.ready) {
      rep.ready = true;
      wakeJoiners(rep);
    } else joinAnswered(rep, id); // a member gone while this replica joined is not waited for
  }
}

/** Whether a tuple of the replica names `id` its owner, or an ownership request waits on it. @param {Replica} rep @param {string} id */
function ownsOrAsked(rep, id) {
  for (const a of rep.acquiring.values()) if (a.asked === id) return true;
  for (const t of rep.tuples.values()) if (t.owner === id) return true;
  return false;
}

/**
 * A node came (back): each replica it had been a member of welcomes it back.
 * @param {any} d a Distribution @param {string} id
 */
export function dtsPeerUp(d, id) {
  const all = d.node.dtsReplicas;
  if (all === undefined) return;
  for (const rep of /** @type {Map<string, Replica>} */ (all).values()) if (rep.departed.has(id)) welcomeBack(d, rep, id);
}

/**
 * A member that had gone away is back. First it is told which of its tuples this node
 * adopted meanwhile and still owns (a REPAIR_ACK naming this node their owner, which the
 * newer-word rule makes it believe): adoption wins, so the two sides agree on one owner
 * and no tuple is withdrawable by both from then on. Then it is told which tuples this
 * replica holds (ACCESS, answered with its own), so what either missed is repaired.
 * @param {any} d a Distribution @param {Replica} rep @param {string} id
 */
export function welcomeBack(d, rep, id) {
  rep.departed.delete(id);
  rep.members.add(id);
  claimAdopted(d, rep, id);
  dtsSend(d, id, [F_DTS, D_ACCESS, rep.name, [...rep.tuples.keys()], true]);
}

/**
 * Tell `id` which of the tuples this node adopted from it this node still owns (a
 * REPAIR_ACK naming this node their owner). Sent when it comes back and again with the
 * answer to each of its ACCESS frames: a frame sent as a link comes back up can be lost
 * with it, and restating an ownership this node holds is always true.
 * @param {any} d @param {Replica} rep @param {string} id
 */
export function claimAdopted(d, rep, id) {
  const self = d.node.id;
  /** @type {any[]} */
  const claims = [];
  for (const [tid, t] of rep.tuples) if (t.adoptedFrom === id && t.owner === self) claims.push([tid, self, t.bytes]);
  if (claims.length > 0) dtsSend(d, id, [F_DTS, D_REPAIR_ACK, rep.name, claims, [], [], false]);
}

/**
 * The new owner of the tuples of a member that went away: the home, or (the home gone)
 * the member with the smallest id.
 * @param {Replica} rep @param {string} gone
 */
function adopter(rep, gone) {
  if (rep.home !== gone) return rep.home;
  let best = rep.node.id;
  for (const m of rep.members) if (m < best) best = m;
  return best;
}
