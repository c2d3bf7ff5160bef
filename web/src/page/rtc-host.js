// @ts-check
/**
 * The page's half of the worker's RTCPeerConnection (worker/rtc-proxy.js): real peer
 * connections, created and driven on the worker's behalf. Each data channel is
 * transferred to the worker in the task that created it (a transferable RTCDataChannel
 * must move before it is used), so no data message ever passes through this thread.
 *
 * When the page goes away every peer connection is closed at once, which tells the
 * remote ends (SCTP abort) rather than leaving them to notice by heartbeat timeout.
 */

/**
 * Serve RTC requests from `worker`.
 * @param {Worker} worker
 * @returns {{handle: (m: any) => boolean, closeAll: () => void, count: () => number, selectedPairs: () => Promise<{local: string, remote: string}[]>}}
 */
export function hostRtc(worker) {
  /** @type {Map<number, RTCPeerConnection>} */
  const pcs = new Map();

  return {
    /** @param {any} m a message from the worker; false if it is not an RTC one */
    handle(m) {
      if (!m || typeof m.rtc !== 'string') return false;
      switch (m.rtc) {
        case 'new': {
          const pc = new RTCPeerConnection({
            iceServers: (m.config?.iceServers ?? []).map((/** @type {any} */ s) => (typeof s === 'string' ? { urls: s } : s)),
            iceTransportPolicy: m.config?.iceTransportPolicy === 'relay' ? 'relay' : 'all',
          });
          pcs.set(m.pc, pc);
          watch(worker, pcs, m.pc, pc);
          return true;
        }
        case 'dc': {
          const pc = pcs.get(m.pc);
          if (!pc) return true;
          const channel = pc.createDataChannel(m.label, m.options);
          worker.postMessage({ rtc: 'channel', pc: m.pc, dc: m.dc, channel }, [/** @type {any} */ (channel)]);
          return true;
        }
        case 'call': {
          const pc = pcs.get(m.pc);
          if (!pc) {
            worker.postMessage({ rtc: 'reply', req: m.req, ok: false, error: 'no such peer connection' });
            return true;
          }
          call(pc, m.op, m.arg).then(
            (value) => worker.postMessage({ rtc: 'reply', req: m.req, ok: true, value }),
            (e) => worker.postMessage({ rtc: 'reply', req: m.req, ok: false, error: e instanceof Error ? e.message : String(e) }),
          );
          return true;
        }
        case 'close': {
          const pc = pcs.get(m.pc);
          pcs.delete(m.pc);
          pc?.close();
          return true;
        }
        default:
          return true;
      }
    },
    closeAll() {
      for (const pc of pcs.values()) pc.close();
      pcs.clear();
    },
    count: () => pcs.size,
    selectedPairs: () => selectedPairs([...pcs.values()]),
  };
}

/**
 * The candidate types ("host", "srflx", "prflx", "relay") of the nominated, succeeded
 * ICE pair of each open peer connection (from getStats()).
 * @param {RTCPeerConnection[]} list
 */
async function selectedPairs(list) {
  /** @type {{local: string, remote: string}[]} */
  const out = [];
  for (const pc of list) {
    if (pc.connectionState === 'closed') continue;
    /** @type {Map<string, any>} */
    const stats = new Map();
    (await pc.getStats()).forEach((/** @type {any} */ v) => stats.set(v.id, v));
    for (const v of stats.values()) {
      if (v.type !== 'candidate-pair' || !v.nominated || v.state !== 'succeeded') continue;
      out.push({ local: stats.get(v.localCandidateId)?.candidateType, remote: stats.get(v.remoteCandidateId)?.candidateType });
    }
  }
  return out;
}

/**
 * Tell the worker what a peer connection does: its ICE candidates, its state, the data
 * channels the remote end opens (transferred at once).
 * @param {Worker} worker @param {Map<number, RTCPeerConnection>} pcs @param {number} id @param {RTCPeerConnection} pc
 */
function watch(worker, pcs, id, pc) {
  pc.onicecandidate = (e) => {
    const c = e.candidate;
    worker.postMessage({ rtc: 'ice', pc: id, candidate: c && c.candidate ? { candidate: c.candidate, sdpMid: c.sdpMid } : null });
  };
  pc.onconnectionstatechange = () => {
    worker.postMessage({ rtc: 'state', pc: id, state: pc.connectionState, maxMessageSize: pc.sctp?.maxMessageSize });
    if (pc.connectionState === 'closed' || pc.connectionState === 'failed') pcs.delete(id);
  };
  pc.ondatachannel = (e) => {
    worker.postMessage({ rtc: 'channel', pc: id, dc: 0, channel: e.channel }, [/** @type {any} */ (e.channel)]);
  };
}

/**
 * One operation the worker asked for on a peer connection; descriptions are answered as
 * plain objects (they cross postMessage).
 * @param {RTCPeerConnection} pc @param {string} op @param {any} arg
 */
async function call(pc, op, arg) {
  switch (op) {
    case 'createOffer': {
      const d = await pc.createOffer();
      return { type: d.type, sdp: d.sdp };
    }
    case 'createAnswer': {
      const d = await pc.createAnswer();
      return { type: d.type, sdp: d.sdp };
    }
    case 'setLocalDescription':
      await pc.setLocalDescription(arg);
      return pc.localDescription ? { type: pc.localDescription.type, sdp: pc.localDescription.sdp } : null;
    case 'setRemoteDescription':
      await pc.setRemoteDescription(arg);
      return null;
    case 'addIceCandidate':
      await pc.addIceCandidate(arg);
      return null;
    default:
      throw new Error(`unknown RTC operation ${op}`);
  }
}
