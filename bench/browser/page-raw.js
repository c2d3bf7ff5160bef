// @ts-check
/**
 * The page side of the raw transports that bench/browser.js measures our ping-pong
 * against: functions handed to Playwright's page.evaluate, which ships a function's
 * source text to the page and runs it there. Invariants: each exported function is
 * self-contained (it names nothing from this module or any other; what it needs comes
 * in its argument or from the page's `window`), and its warm-up and timed rounds are
 * the same as the mesh ping-pong's (count/2 round trips repeated until warmMs have
 * passed, at most 100 times; then `rounds` rounds of `count`), so the two figures of a
 * ratio are measured alike.
 */

/**
 * The ping-pong of raw.webrtc.browser.worker, run in a Web Worker: the page transfers its
 * data channel to the worker (`{dc}`), which answers 'open' once the channel is open,
 * then runs `{run: {count, rounds, bytes, warmMs}}` and posts the round trips/s of each
 * round. Source text, because the page builds the worker from a Blob.
 */
export const RAW_WORKER_SOURCE = `
        let dc = null;
        onmessage = async (e) => {
          if (e.data.dc) {
            dc = e.data.dc;
            dc.binaryType = 'arraybuffer';
            if (dc.readyState !== 'open') await new Promise((res) => { dc.onopen = res; });
            postMessage('open');
            return;
          }
          const { count, rounds, bytes, warmMs } = e.data.run;
          const msg = new Uint8Array(bytes).fill(7);
          let onReply = null;
          dc.onmessage = () => onReply();
          const trip = (n) => new Promise((resolve) => {
            let left = n;
            onReply = () => { if (--left === 0) resolve(); else dc.send(msg); };
            dc.send(msg);
          });
          const w0 = performance.now();
          for (let i = 0; i < 100 && (i === 0 || performance.now() - w0 < warmMs); i++) await trip(Math.max(1, count >> 1));
          const out = [];
          for (let r = 0; r < rounds; r++) {
            const t0 = performance.now();
            await trip(count);
            out.push((count * 1000) / (performance.now() - t0));
          }
          postMessage(out);
        };`;

/**
 * In a page: open a WebSocket (and, for webrtc, a data channel to node-datachannel
 * signalled over it) to the echo server; ping-pong `count` messages of `bytes` bytes,
 * a warm-up of count/2 then `rounds` timed rounds; returns round trips/s per round.
 * With inWorker (webrtc only) the data channel is transferred to a Web Worker, which
 * runs the ping-pong: the placement of the mesh's channels in a worker tab.
 * @param {{port: number, mode: 'ws'|'webrtc', bytes: number, count: number, rounds: number, warmMs: number, inWorker?: boolean, workerSource: string}} a
 */
export async function pageRawEcho(a) {
  // size: page.evaluate ships this one function's source to the page, so the signalling,
  // the hand-over to the worker and the timed loop it needs cannot live outside it
  const bound = (/** @type {Promise<any>} */ p, /** @type {number} */ ms, /** @type {string} */ what) => Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms))]);
  const ws = new WebSocket(`ws://127.0.0.1:${a.port}/`);
  ws.binaryType = 'arraybuffer';
  await bound(new Promise((res, rej) => { ws.onopen = res; ws.onerror = () => rej(new Error('ws error')); }), 10000, 'ws open');
  const msg = new Uint8Array(a.bytes).fill(7);
  /** @type {(m: Uint8Array) => void} */
  let send;
  /** @type {(() => void) | null} */
  let onReply = null;
  /** @type {RTCPeerConnection | null} */
  let pc = null;
  /** @type {Worker | null} */
  let worker = null;
  if (a.mode === 'ws') {
    send = (m) => ws.send(m);
    ws.onmessage = () => onReply?.();
  } else {
    // loopback-rewrite (packages/mesh/src/transports/candidates.js): IPv4 host candidates to 127.0.0.1, nothing else
    const rewrite = (/** @type {string} */ c) => {
      const f = c.replace(/^a=/, '').trim().split(/\s+/);
      if (f.length < 8 || f[2].toLowerCase() !== 'udp' || f[7] !== 'host' || !/^\d{1,3}(\.\d{1,3}){3}$/.test(f[4])) return null;
      f[4] = '127.0.0.1';
      return f.join(' ');
    };
    const p = (pc = new RTCPeerConnection({ iceServers: [] }));
    const dc = p.createDataChannel('raw', { ordered: true });
    dc.binaryType = 'arraybuffer';
    if (a.inWorker) {
      // transferred in the task that created it (a transferable RTCDataChannel must move before it is used)
      worker = new Worker(URL.createObjectURL(new Blob([a.workerSource], { type: 'text/javascript' })));
      worker.postMessage({ dc }, [/** @type {any} */ (dc)]);
    }
    /** @type {{candidate: string, mid: string}[]} */
    const held = [];
    let answered = false;
    p.onicecandidate = (e) => {
      const c = e.candidate && e.candidate.candidate ? rewrite(e.candidate.candidate) : null;
      if (!c) return;
      const m = { candidate: c, mid: e.candidate?.sdpMid ?? '0' };
      if (answered) ws.send(JSON.stringify({ kind: 'candidate', ...m }));
      else held.push(m);
    };
    ws.onmessage = async (e) => {
      const m = JSON.parse(String(e.data));
      if (m.kind === 'answer') {
        await p.setRemoteDescription({ type: 'answer', sdp: m.sdp });
        answered = true;
        for (const c of held.splice(0)) ws.send(JSON.stringify({ kind: 'candidate', ...c }));
      } else if (m.kind === 'candidate') await p.addIceCandidate({ candidate: m.candidate, sdpMid: m.mid });
    };
    const offer = await p.createOffer();
    await p.setLocalDescription(offer);
    ws.send(JSON.stringify({ kind: 'offer', sdp: p.localDescription?.sdp }));
    if (worker !== null) {
      // the data channel's messages then go to the worker's thread, as the mesh's do
      // (the worker runs the ping-pong; the page only signals)
      const w = worker;
      const done = new Promise((res, rej) => { w.onmessage = (e) => res(e.data); w.onerror = (e) => rej(new Error(`raw worker: ${e.message}`)); });
      await bound(done, 120000, 'the raw ping-pong in a worker').then(() => {});
      const rates = await bound(new Promise((res) => { w.onmessage = (e) => res(e.data); w.postMessage({ run: { count: a.count, rounds: a.rounds, bytes: a.bytes, warmMs: a.warmMs } }); }), 240000, 'the raw ping-pong in a worker');
      w.terminate();
      pc?.close();
      ws.close();
      return /** @type {number[]} */ (rates);
    }
    await bound(new Promise((res) => { if (dc.readyState === 'open') res(undefined); else dc.onopen = res; }), 15000, 'data channel open');
    send = (m) => dc.send(/** @type {any} */ (m));
    dc.onmessage = () => onReply?.();
  }
  const trip = (/** @type {number} */ n) => new Promise((resolve) => {
    let left = n;
    onReply = () => {
      if (--left === 0) resolve(undefined);
      else send(msg);
    };
    send(msg);
  });
  const w0 = performance.now();
  for (let i = 0; i < 100 && (i === 0 || performance.now() - w0 < a.warmMs); i++) await bound(trip(Math.max(1, a.count >> 1)), 60000, 'warm-up');
  const out = [];
  for (let r = 0; r < a.rounds; r++) {
    const t0 = performance.now();
    await bound(trip(a.count), 60000, 'round');
    out.push((a.count * 1000) / (performance.now() - t0));
  }
  pc?.close();
  ws.close();
  return out;
}

/** In a page: a peer connection with one data channel (or waiting for one); signalling by the caller. */
export function pageRtcSetup() {
  /** @type {any} */
  const w = window;
  const rewrite = (/** @type {string} */ c) => {
    const f = c.replace(/^a=/, '').trim().split(/\s+/);
    if (f.length < 8 || f[2].toLowerCase() !== 'udp' || f[7] !== 'host' || !/^\d{1,3}(\.\d{1,3}){3}$/.test(f[4])) return null;
    f[4] = '127.0.0.1';
    return f.join(' ');
  };
  const pc = new RTCPeerConnection({ iceServers: [] });
  /** @type {{candidate: string, sdpMid: string}[]} */
  const cands = [];
  pc.onicecandidate = (e) => {
    const c = e.candidate && e.candidate.candidate ? rewrite(e.candidate.candidate) : null;
    if (c) cands.push({ candidate: c, sdpMid: e.candidate?.sdpMid ?? '0' });
  };
  const gathered = new Promise((res) => {
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') res(undefined); };
  });
  w.rawRtc = { pc, cands, gathered, dc: null };
  /** @param {RTCDataChannel} dc */
  const bind = (dc) => {
    dc.binaryType = 'arraybuffer';
    w.rawRtc.dc = dc;
    w.rawRtc.open = new Promise((res) => { if (dc.readyState === 'open') res(undefined); else dc.onopen = res; });
  };
  w.rawRtc.bind = bind;
  pc.ondatachannel = (e) => {
    bind(e.channel);
    e.channel.onmessage = (m) => e.channel.send(m.data); // the echo side
  };
}

/**
 * In a page set up by pageRtcSetup whose data channel is open: ping-pong `count`
 * messages of `bytes` bytes with the other page (its echo side), a warm-up of count/2
 * repeated until `warmMs` have passed, then `rounds` timed rounds; round trips/s per round.
 * @param {{bytes: number, count: number, rounds: number, warmMs: number}} a
 */
export async function pageRawTabsPingPong(a) {
  const dc = /** @type {any} */ (window).rawRtc.dc;
  const msg = new Uint8Array(a.bytes).fill(7);
  const trip = (/** @type {number} */ n) => new Promise((resolve, reject) => {
    let left = n;
    const t = setTimeout(() => reject(new Error('no echo within 60 s')), 60000);
    dc.onmessage = () => {
      if (--left === 0) { clearTimeout(t); resolve(undefined); } else dc.send(msg);
    };
    dc.send(msg);
  });
  const w0 = performance.now();
  for (let i = 0; i < 100 && (i === 0 || performance.now() - w0 < a.warmMs); i++) await trip(Math.max(1, a.count >> 1));
  const out = [];
  for (let r = 0; r < a.rounds; r++) {
    const t0 = performance.now();
    await trip(a.count);
    out.push((a.count * 1000) / (performance.now() - t0));
  }
  return out;
}
