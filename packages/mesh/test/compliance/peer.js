// @ts-check
/**
 * The far end of a compliance test: serves a tiny command protocol on a
 * Connection, so the suite can drive a peer in another process or a browser.
 * The first byte of each message is a command:
 *   0x01 echo       reply with the same bytes
 *   0x02 close      close the connection, the rest (UTF-8) being the reason
 *   0x03 burst      [0x03, count u32, size u32]: send `count` messages of
 *                   `size` bytes, each starting with 0x03 and its index (u32)
 *   0x06 sink       discard (floods that should not come back)
 */

export const CMD = Object.freeze({ ECHO: 1, CLOSE: 2, BURST: 3, SINK: 6 });

/** @param {import('../../src/interfaces.js').Connection} conn */
export function serveCompliancePeer(conn) {
  conn.onmessage = (data) => {
    switch (data[0]) {
      case CMD.ECHO:
        conn.send(data.slice());
        return;
      case CMD.CLOSE:
        conn.close(new TextDecoder().decode(data.subarray(1)));
        return;
      case CMD.BURST: {
        const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
        const count = Math.min(v.getUint32(1), 100_000);
        const size = Math.max(5, Math.min(v.getUint32(5), conn.maxMessageBytes));
        for (let i = 0; i < count; i++) {
          const m = new Uint8Array(size);
          m[0] = CMD.BURST;
          new DataView(m.buffer).setUint32(1, i);
          conn.send(m);
        }
        return;
      }
      default:
    }
  };
  conn.onclose = () => {};
}

/** @param {number} count @param {number} size */
export function burstCommand(count, size) {
  const m = new Uint8Array(9);
  const v = new DataView(m.buffer);
  m[0] = CMD.BURST;
  v.setUint32(1, count);
  v.setUint32(5, size);
  return m;
}
