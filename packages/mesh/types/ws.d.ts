// Minimal declarations of the parts of `ws` 8 that @termite/mesh uses
// (@types/ws is not a dependency; these are checked against ws's docs).
declare module 'ws' {
  import { EventEmitter } from 'node:events';
  import type { IncomingMessage, Server } from 'node:http';
  export class WebSocket extends EventEmitter {
    static readonly CONNECTING: 0;
    static readonly OPEN: 1;
    static readonly CLOSING: 2;
    static readonly CLOSED: 3;
    constructor(url: string, options?: { maxPayload?: number; perMessageDeflate?: boolean; handshakeTimeout?: number });
    readonly readyState: 0 | 1 | 2 | 3;
    readonly bufferedAmount: number;
    binaryType: 'nodebuffer' | 'arraybuffer' | 'fragments';
    send(data: Uint8Array | string, cb?: (err?: Error) => void): void;
    send(data: Uint8Array | string, options: { binary?: boolean; compress?: boolean; fin?: boolean }, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'open', listener: () => void): this;
    once(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    once(event: 'error', listener: (err: Error) => void): this;
    once(event: 'open', listener: () => void): this;
  }
  export class WebSocketServer extends EventEmitter {
    constructor(options: { host?: string; port?: number; server?: Server; path?: string; maxPayload?: number; perMessageDeflate?: boolean; clientTracking?: boolean; noServer?: boolean });
    address(): import('node:net').AddressInfo | string | null;
    close(cb?: (err?: Error) => void): void;
    handleUpgrade(req: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer, cb: (ws: WebSocket, req: IncomingMessage) => void): void;
    on(event: 'connection', listener: (ws: WebSocket, req: IncomingMessage) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'listening', listener: () => void): this;
    once(event: 'listening', listener: () => void): this;
    once(event: 'error', listener: (err: Error) => void): this;
  }
}
