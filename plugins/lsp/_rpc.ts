/**
 * JSON-RPC over a child process's stdio with `vscode-jsonrpc`'s
 * platform-neutral core (the package root) and a small Deno runtime layer
 * (its "RAL"): message buffers on `Uint8Array`, JSON with `TextEncoder`,
 * timers. The package's `/node` entry is not used because it reads
 * `process.env.XDG_RUNTIME_DIR` when it is imported (for named pipes),
 * which a plugin without that environment grant cannot do; its `/browser`
 * entry is exported only under the `browser` condition, which Deno does
 * not match.
 *
 * @module
 */
import {
  AbstractMessageBuffer,
  createMessageConnection,
  Disposable,
  Emitter,
  type MessageConnection,
  RAL,
  ReadableStreamMessageReader,
  WriteableStreamMessageWriter,
} from "vscode-jsonrpc";

type Encoding = "ascii" | "utf-8";

class DenoMessageBuffer extends AbstractMessageBuffer {
  static readonly EMPTY: Uint8Array = new Uint8Array(0);
  protected emptyBuffer(): Uint8Array {
    return DenoMessageBuffer.EMPTY;
  }
  protected fromString(value: string): Uint8Array {
    return new TextEncoder().encode(value);
  }
  protected toString(value: Uint8Array, encoding: Encoding): string {
    return new TextDecoder(encoding).decode(value);
  }
  protected asNative(buffer: Uint8Array, length?: number): Uint8Array {
    return length === undefined ? buffer : buffer.slice(0, length);
  }
  protected allocNative(length: number): Uint8Array {
    return new Uint8Array(length);
  }
}

let installed = false;

function installRal(): void {
  if (installed) return;
  installed = true;
  RAL.install(Object.freeze({
    crypto: { randomUUID: () => crypto.randomUUID() },
    messageBuffer: {
      create: (encoding: Encoding) => new DenoMessageBuffer(encoding),
    },
    applicationJson: {
      encoder: {
        name: "application/json",
        encode: (msg: unknown) =>
          Promise.resolve(new TextEncoder().encode(JSON.stringify(msg))),
      },
      decoder: {
        name: "application/json",
        decode: (buffer: Uint8Array, options: { charset: string }) =>
          Promise.resolve(
            JSON.parse(new TextDecoder(options.charset).decode(buffer)),
          ),
      },
    },
    console,
    timer: {
      setTimeout(cb: (...a: unknown[]) => void, ms: number, ...a: unknown[]) {
        const h = setTimeout(cb, ms, ...a);
        return Disposable.create(() => clearTimeout(h));
      },
      setImmediate(cb: (...a: unknown[]) => void, ...a: unknown[]) {
        let live = true;
        queueMicrotask(() => live && cb(...a));
        return Disposable.create(() => (live = false));
      },
      setInterval(cb: (...a: unknown[]) => void, ms: number, ...a: unknown[]) {
        const h = setInterval(cb, ms, ...a);
        return Disposable.create(() => clearInterval(h));
      },
    },
  } as unknown as RAL));
}

/** The stdout of a child as the core's readable stream. */
function readable(stream: ReadableStream<Uint8Array>): RAL.ReadableStream {
  const data = new Emitter<Uint8Array>();
  const end = new Emitter<void>();
  const error = new Emitter<unknown>();
  (async () => {
    try {
      for await (const chunk of stream) data.fire(chunk);
      end.fire();
    } catch (err) {
      error.fire(err);
    }
  })();
  return {
    onData: (l) => data.event(l),
    onEnd: (l) => end.event(l),
    onClose: (l) => end.event(l),
    onError: (l) => error.event(l),
  };
}

/** The stdin of a child as the core's writable stream. */
function writable(stream: WritableStream<Uint8Array>): RAL.WritableStream {
  const writer = stream.getWriter();
  const error = new Emitter<unknown>();
  const closed = new Emitter<void>();
  writer.closed.then(() => closed.fire(), (err) => error.fire(err));
  return {
    onClose: (l) => closed.event(l),
    onEnd: (l) => closed.event(l),
    onError: (l) => error.event(l),
    write: (data: Uint8Array | string) =>
      writer.write(
        typeof data === "string" ? new TextEncoder().encode(data) : data,
      ),
    end: () => {
      writer.close().catch(() => {});
    },
  } as RAL.WritableStream;
}

/**
 * A JSON-RPC connection (LSP framing: `Content-Length` headers) over a
 * child process's stdout and stdin.
 *
 * @param child The process, started with piped stdin and stdout.
 * @returns The connection (not yet listening).
 */
export function stdioConnection(child: Deno.ChildProcess): MessageConnection {
  installRal();
  return createMessageConnection(
    new ReadableStreamMessageReader(readable(child.stdout)),
    new WriteableStreamMessageWriter(writable(child.stdin)),
  );
}
