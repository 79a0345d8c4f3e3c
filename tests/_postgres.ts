/**
 * A private PostgreSQL cluster for the tests: `initdb` into a temporary
 * directory, `postgres` on 127.0.0.1 at a free port (its unix socket in the
 * same directory), trust authentication for one database user, `fsync=off`
 * (a test cluster never survives a power loss). As root, the server runs as
 * the `postgres` system user (PostgreSQL refuses root) through `runuser`.
 *
 * The server binaries are looked up in `$PG_BINDIR`, then
 * `/usr/lib/postgresql/<newest>/bin`, then `PATH`. When they are absent the
 * helper says so; under `CI=true` that is a failure, locally the test file
 * reports it and its tests are ignored with the reason in their name.
 *
 * @module
 */

/** A running cluster. */
export interface PgCluster {
  /** `postgres://agent@127.0.0.1:PORT/agent`. */
  readonly url: string;
  /** The port. */
  readonly port: number;
  /** The data directory. */
  readonly dataDir: string;
  /** Stops the server immediately (as a crash would) or cleanly. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the stopped server again on the same port. */
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  [Symbol.asyncDispose](): Promise<void>;
  /** The same, synchronously (for an `unload` handler). */
  disposeSync(): void;
}

function findBinDir(): string | undefined {
  const candidates: string[] = [];
  const env = Deno.env.get("PG_BINDIR");
  if (env) candidates.push(env);
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((e) => e.name).filter((n) => /^\d+$/.test(n))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  } catch {
    // not installed from Debian
  }
  for (const p of (Deno.env.get("PATH") ?? "").split(":")) {
    if (p) candidates.push(p);
  }
  for (const dir of candidates) {
    try {
      Deno.statSync(`${dir}/initdb`);
      Deno.statSync(`${dir}/pg_ctl`);
      return dir;
    } catch {
      // next
    }
  }
  return undefined;
}

const BIN_DIR = findBinDir();

/**
 * Why PostgreSQL cannot run here, or `undefined` when it can. Under
 * `CI=true` a missing server throws instead: CI never skips these tests.
 */
export const POSTGRES_ABSENT: string | undefined = (() => {
  if (BIN_DIR) return undefined;
  const why =
    "PostgreSQL server binaries (initdb, pg_ctl) not found in $PG_BINDIR, /usr/lib/postgresql/*/bin or PATH; install the Debian postgresql package";
  if (Deno.env.get("CI") === "true") throw new Error(why);
  console.error(`postgres tests ignored: ${why}`);
  return why;
})();

/** The test-name suffix for a file whose tests need PostgreSQL. */
export const PG_IGNORE: boolean = POSTGRES_ABSENT !== undefined;

const IS_ROOT = Deno.uid() === 0;

async function run(cmd: string, args: string[], what: string): Promise<void> {
  const argv = IS_ROOT
    ? { cmd: "runuser", args: ["-u", "postgres", "--", cmd, ...args] }
    : { cmd, args };
  const out = await new Deno.Command(argv.cmd, {
    args: argv.args,
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  if (!out.success) {
    throw new Error(
      `${what} failed (${out.code}): ${new TextDecoder().decode(out.stderr)}${
        new TextDecoder().decode(out.stdout)
      }`,
    );
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts a fresh private cluster with a database `agent`. */
export async function startPgCluster(): Promise<PgCluster> {
  if (!BIN_DIR) throw new Error(POSTGRES_ABSENT);
  const dir = await Deno.makeTempDir({ prefix: "agent-pg-" });
  const dataDir = `${dir}/data`;
  const port = freePort();
  let running = false;
  const pgCtl = `${BIN_DIR}/pg_ctl`;
  const start = async () => {
    await run(pgCtl, [
      "-D",
      dataDir,
      "-l",
      `${dir}/server.log`,
      "-w",
      "-t",
      "30",
      "-o",
      `-h 127.0.0.1 -p ${port} -k ${dir} -F -c max_connections=200 -c fsync=off -c synchronous_commit=on`,
      "start",
    ], "pg_ctl start");
    running = true;
  };
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    if (!running) return;
    running = false;
    await run(pgCtl, ["-D", dataDir, "-m", mode, "-w", "stop"], "pg_ctl stop");
  };
  try {
    if (IS_ROOT) {
      await Deno.chmod(dir, 0o700);
      await new Deno.Command("chown", { args: ["postgres", dir] }).output();
    }
    await run(`${BIN_DIR}/initdb`, [
      "-D",
      dataDir,
      "-A",
      "trust",
      "-U",
      "agent",
      "-E",
      "UTF8",
      "--no-sync",
      "--no-instructions",
    ], "initdb");
    await start();
    await run(`${BIN_DIR}/createdb`, [
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      "agent",
      "agent",
    ], "createdb");
  } catch (error) {
    await stop("immediate").catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw error;
  }
  return {
    url: `postgres://agent@127.0.0.1:${port}/agent`,
    port,
    dataDir,
    stop,
    start,
    disposeSync() {
      if (running) {
        running = false;
        const argv = ["-D", dataDir, "-m", "immediate", "-w", "stop"];
        new Deno.Command(IS_ROOT ? "runuser" : pgCtl, {
          args: IS_ROOT ? ["-u", "postgres", "--", pgCtl, ...argv] : argv,
          stdout: "null",
          stderr: "null",
        }).outputSync();
      }
      Deno.removeSync(dir, { recursive: true });
    },
    async [Symbol.asyncDispose]() {
      try {
        await stop("immediate");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  };
}

/**
 * One cluster for a whole test file: started on first use, stopped by the
 * file's last test ({@linkcode stopSharedCluster}) or, if a filter skipped
 * that test, when the file's process unloads.
 */
let shared: Promise<PgCluster> | undefined;

/** The file's shared cluster (started on first use). */
export function sharedCluster(): Promise<PgCluster> {
  if (!shared) {
    shared = startPgCluster();
    shared.then((c) => {
      globalThis.addEventListener("unload", () => {
        try {
          c.disposeSync();
        } catch {
          // already gone
        }
      });
    }, () => {});
  }
  return shared;
}

/** Stops the file's shared cluster, if it was started. */
export async function stopSharedCluster(): Promise<void> {
  const c = shared;
  shared = undefined;
  if (c) await (await c)[Symbol.asyncDispose]();
}

let schemas = 0;

/** A fresh schema name, so each test starts from an empty store. */
export function freshSchema(): string {
  return `t${Deno.pid}_${++schemas}`;
}
