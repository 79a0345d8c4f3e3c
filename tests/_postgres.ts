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

/** The cache directory for templates: `$XDG_CACHE_HOME` or `~/.cache`. */
function cacheRoot(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const home = Deno.env.get("HOME");
  const base = xdg || (home ? `${home}/.cache` : Deno.env.get("TMPDIR") ??
    "/tmp");
  return `${base}/ph-agent-tests/postgres`;
}

const INITDB_ARGS = [
  "-A",
  "trust",
  "-U",
  "agent",
  "-E",
  "UTF8",
  "--no-sync",
  "--no-instructions",
];

function serverOptions(port: number, socketDir: string): string {
  return `-h 127.0.0.1 -p ${port} -k ${socketDir} -F -c max_connections=200 -c fsync=off -c synchronous_commit=on`;
}

/** A key of everything the template depends on: the server build, the
 * initdb arguments and who owns the files. */
async function templateKey(binDir: string): Promise<string> {
  const version = await new Deno.Command(`${binDir}/postgres`, {
    args: ["--version"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const st = await Deno.stat(`${binDir}/postgres`);
  const text = [
    binDir,
    new TextDecoder().decode(version.stdout).trim(),
    String(st.mtime?.getTime() ?? 0),
    String(st.size),
    INITDB_ARGS.join(" "),
    "createdb agent",
    IS_ROOT ? "runuser postgres" : `uid ${Deno.uid()}`,
  ].join("\0");
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return [...new Uint8Array(digest).slice(0, 12)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Makes `dir` private to the server's user (PostgreSQL's own rule). */
async function ownDir(dir: string): Promise<void> {
  await Deno.chmod(dir, 0o700);
  if (IS_ROOT) {
    const out = await new Deno.Command("chown", {
      args: ["postgres", dir],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `chown postgres ${dir} failed: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
  }
}

/** Copies a data directory with its owner and modes (`cp -a`). */
async function copyTree(from: string, to: string): Promise<void> {
  const out = await new Deno.Command("cp", {
    args: ["-a", from, to],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `cp -a ${from} ${to} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

let templateDir: Promise<string> | undefined;
/**
 * The data directory of a stopped, freshly initialised cluster with the
 * database `agent`, built once and kept in the cache directory under a
 * key of the server build (`initdb` is most of a cluster's start-up cost;
 * `cp -a` of the result is a tenth of it). Built under a file lock, so
 * the test files of one `deno test --parallel` run build it once.
 */
function template(binDir: string): Promise<string> {
  templateDir ??= buildTemplate(binDir);
  return templateDir;
}

/**
 * Builds the cached template now, if PostgreSQL is installed (the lock
 * makes a test file that needs it meanwhile wait for this build instead of
 * starting its own): `.ci/run` calls it before the tests start.
 */
export async function prepareTemplate(): Promise<void> {
  if (BIN_DIR) await template(BIN_DIR);
}

const DAY_MS = 24 * 60 * 60 * 1000;

async function buildTemplate(binDir: string): Promise<string> {
  const root = cacheRoot();
  await Deno.mkdir(root, { recursive: true });
  const key = await templateKey(binDir);
  const dir = `${root}/${key}`;
  const done = `${dir}/complete`;
  const lock = await Deno.open(`${root}/${key}.lock`, {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    if (!(await exists(done))) {
      // initdb runs as the server's user, which cannot enter a home
      // directory's cache: build in the temporary directory, then copy.
      const ws = await Deno.makeTempDir({ prefix: "agent-pg-template-" });
      const staging = `${root}/${key}.building-${Deno.pid}`;
      try {
        await ownDir(ws);
        const dataDir = `${ws}/data`;
        await run(
          `${binDir}/initdb`,
          ["-D", dataDir, ...INITDB_ARGS],
          "initdb",
        );
        const port = freePort();
        await run(`${binDir}/pg_ctl`, [
          "-D",
          dataDir,
          "-l",
          `${ws}/server.log`,
          "-w",
          "-t",
          "30",
          "-o",
          serverOptions(port, ws),
          "start",
        ], "pg_ctl start (template)");
        try {
          await run(`${binDir}/createdb`, [
            "-h",
            "127.0.0.1",
            "-p",
            String(port),
            "-U",
            "agent",
            "agent",
          ], "createdb (template)");
        } finally {
          await run(
            `${binDir}/pg_ctl`,
            ["-D", dataDir, "-m", "fast", "-w", "stop"],
            "pg_ctl stop (template)",
          );
        }
        await Deno.remove(staging, { recursive: true }).catch(() => {});
        await Deno.mkdir(staging);
        await copyTree(dataDir, `${staging}/data`);
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        await Deno.rename(staging, dir);
        await Deno.writeTextFile(done, key);
      } finally {
        await Deno.remove(ws, { recursive: true }).catch(() => {});
        await Deno.remove(staging, { recursive: true }).catch(() => {});
      }
    }
    // Marks this template used; removes templates nobody used for a day
    // (another server build, or another checkout's).
    const now = new Date();
    await Deno.utime(done, now, now);
    for await (const e of Deno.readDir(root)) {
      if (!e.isDirectory || e.name === key) continue;
      const path = `${root}/${e.name}`;
      const used = (await Deno.stat(`${path}/complete`).catch(() =>
        Deno.stat(path)
      ).catch(() => null))?.mtime?.getTime();
      if (used !== undefined && now.getTime() - used > DAY_MS) {
        await Deno.remove(path, { recursive: true }).catch(() => {});
        await Deno.remove(`${path}.lock`).catch(() => {});
      }
    }
  } finally {
    lock.close();
  }
  return `${dir}/data`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a fresh private cluster with a database `agent`: a copy of the
 * cached template (built on first use), on a free port.
 */
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
      serverOptions(port, dir),
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
    await ownDir(dir);
    await copyTree(await template(BIN_DIR), dataDir);
    await start();
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
