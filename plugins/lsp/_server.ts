/**
 * One language server over stdio (LSP 3.17), through `vscode-jsonrpc`:
 * started once (at Configure), initialized in the background, then asked
 * for a file's diagnostics after each write — by a `textDocument/diagnostic`
 * pull when the server offers it (Deno's `deno lsp` does), else by waiting
 * for its next `textDocument/publishDiagnostics` of that file. A server
 * that exits is not restarted: later checks report nothing.
 *
 * @module
 */
import type { MessageConnection } from "vscode-jsonrpc";
import { stdioConnection } from "./_rpc.ts";

/** How to start a server. */
export interface ServerSpec {
  /** The program and its arguments. */
  readonly command: readonly string[];
  /** Its working directory (the workspace root). */
  readonly cwd: string;
  /** Its complete environment. */
  readonly env: Record<string, string>;
  /** `initializationOptions` of the `initialize` request. */
  readonly initializationOptions?: unknown;
}

/** A diagnostic as the server reports it (LSP `Diagnostic`, the fields used). */
export interface LspDiagnostic {
  /** Zero-based range. */
  readonly range: {
    readonly start: { readonly line: number; readonly character: number };
  };
  /** 1 error, 2 warning, 3 information, 4 hint. */
  readonly severity?: number;
  /** The diagnostic's code. */
  readonly code?: string | number;
  /** Who produced it, e.g. `deno-ts`. */
  readonly source?: string;
  /** The message. */
  readonly message: string;
}

/** What a check found out. */
export type CheckResult =
  | { readonly ok: true; readonly diagnostics: readonly LspDiagnostic[] }
  | { readonly ok: false; readonly reason: string };

const STDERR_TAIL = 2048;

/** A running language server. */
export class LanguageServer {
  readonly #spec: ServerSpec;
  readonly #child: Deno.ChildProcess;
  readonly #status: Promise<void>;
  readonly #conn: MessageConnection;
  readonly #versions = new Map<string, number>();
  readonly #pushed = new Map<string, LspDiagnostic[]>();
  readonly #waiters = new Map<string, (d: LspDiagnostic[]) => void>();
  readonly ready: Promise<void>;
  #pull = false;
  #exited: string | undefined;
  #stderr = "";

  /**
   * Starts the server and its `initialize` handshake (in the background:
   * await {@linkcode LanguageServer.ready}).
   *
   * @param spec How to start it.
   * @throws {Error} When the program cannot be started (not found, not
   * permitted).
   */
  constructor(spec: ServerSpec) {
    this.#spec = spec;
    const [program, ...args] = spec.command;
    const child = new Deno.Command(program!, {
      args,
      cwd: spec.cwd,
      env: spec.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#status = child.status.then((status) => {
      this.#exited ??= `it exited (${
        status.signal ? `signal ${status.signal}` : `code ${status.code}`
      })${this.#stderr ? `: ${this.#stderr.trim().slice(-300)}` : ""}`;
      for (const w of this.#waiters.values()) w([]);
    });
    (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        this.#stderr = (this.#stderr + decoder.decode(chunk)).slice(
          -STDERR_TAIL,
        );
      }
    })().catch(() => {});
    this.#conn = stdioConnection(this.#child);
    this.#conn.onNotification(
      "textDocument/publishDiagnostics",
      (p: { uri: string; diagnostics: LspDiagnostic[] }) => {
        this.#pushed.set(p.uri, p.diagnostics);
        const w = this.#waiters.get(p.uri);
        if (w) {
          this.#waiters.delete(p.uri);
          w(p.diagnostics);
        }
      },
    );
    // Requests a client must answer: settings (none: null each), and
    // registrations and progress tokens (accepted).
    this.#conn.onRequest(
      "workspace/configuration",
      (p: { items: unknown[] }) => p.items.map(() => null),
    );
    this.#conn.onRequest(() => null);
    this.#conn.onNotification(() => {});
    this.#conn.onError(() => {});
    this.#conn.listen();
    this.ready = this.#initialize();
    this.ready.catch(() => {});
  }

  /** Why the server is gone, once it is. */
  get exited(): string | undefined {
    return this.#exited;
  }

  async #initialize(): Promise<void> {
    const root = new URL(`file://${this.#spec.cwd}/`).href;
    const result = await this.#conn.sendRequest<
      { capabilities?: { diagnosticProvider?: unknown } }
    >("initialize", {
      processId: Deno.pid,
      rootUri: root,
      workspaceFolders: [{ uri: root, name: "workspace" }],
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true },
        textDocument: {
          synchronization: { dynamicRegistration: false },
          publishDiagnostics: { versionSupport: true },
          diagnostic: { dynamicRegistration: false },
        },
      },
      ...(this.#spec.initializationOptions !== undefined
        ? { initializationOptions: this.#spec.initializationOptions }
        : {}),
    });
    this.#pull = result?.capabilities?.diagnosticProvider !== undefined;
    await this.#conn.sendNotification("initialized", {});
  }

  /**
   * Sends the file's current text (open, or a full change) and asks for
   * its diagnostics, within `timeoutMs` (the server's start included).
   *
   * @param path The file's absolute path.
   * @param languageId Its LSP language id.
   * @param text Its text.
   * @param timeoutMs The bound.
   * @returns The diagnostics, or why there are none.
   */
  async check(
    path: string,
    languageId: string,
    text: string,
    timeoutMs: number,
  ): Promise<CheckResult> {
    if (this.#exited) return { ok: false, reason: this.#exited };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            ok: false,
            reason: `no diagnostics within ${timeoutMs} ms`,
          }),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([
        this.#check(path, languageId, text),
        timeout,
      ]);
    } catch (err) {
      return {
        ok: false,
        reason: this.#exited ??
          (err instanceof Error ? err.message : String(err)),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async #check(
    path: string,
    languageId: string,
    text: string,
  ): Promise<CheckResult> {
    await this.ready;
    const uri = new URL(`file://${path}`).href;
    const version = (this.#versions.get(uri) ?? 0) + 1;
    this.#versions.set(uri, version);
    const pushed = this.#pull ? undefined : new Promise<LspDiagnostic[]>(
      (resolve) => this.#waiters.set(uri, resolve),
    );
    if (version === 1) {
      await this.#conn.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId, version, text },
      });
    } else {
      await this.#conn.sendNotification("textDocument/didChange", {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      });
    }
    if (!this.#pull) {
      const diagnostics = await pushed!;
      if (this.#exited) return { ok: false, reason: this.#exited };
      return { ok: true, diagnostics };
    }
    const report = await this.#conn.sendRequest<
      { kind?: string; items?: LspDiagnostic[] }
    >("textDocument/diagnostic", { textDocument: { uri } });
    return { ok: true, diagnostics: report?.items ?? [] };
  }

  /**
   * Shuts the server down (`shutdown`, `exit`), killing it after a grace.
   *
   * @param graceMs How long it may take.
   * @returns When it is gone.
   */
  async stop(graceMs = 2000): Promise<void> {
    if (!this.#exited) {
      const kill = setTimeout(() => {
        try {
          this.#child.kill("SIGKILL");
        } catch {
          // Gone already.
        }
      }, graceMs);
      try {
        await Promise.race([
          (async () => {
            await this.#conn.sendRequest("shutdown");
            await this.#conn.sendNotification("exit");
          })().catch(() => {}),
          new Promise((r) => setTimeout(r, graceMs)),
        ]);
        await this.#status;
      } finally {
        clearTimeout(kill);
      }
    }
    this.#conn.dispose();
  }
}
