/**
 * Builds the Go go-plugin fixtures (tests/go/) offline in GOPATH mode from
 * Debian's packages, once per process, for the interop tests and the
 * benchmarks. `SKIP` says why that is impossible on this machine, if it is.
 * It imports nothing but `node:` modules, so that `.ci/run` can start the
 * build (tests/_ci_fixtures.ts) before the project's packages are fetched;
 * the tests import it through tests/_go_build.ts.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO: string = fileURLToPath(new URL("../", import.meta.url))
  .replace(/\/$/, "");
const GO_FIXTURES = join(REPO, "tests", "go");
const PROTO_DIR = join(REPO, "proto");
/** Where Debian installs Go sources (`golang-*-dev` packages). */
const GOCODE = "/usr/share/gocode";
/** The packaged Go sources the fixtures build against (under `GOCODE/src`). */
const GOCODE_PACKAGES = [
  "github.com/hashicorp/go-plugin",
  "google.golang.org/grpc",
  "google.golang.org/protobuf",
];
/** The PATH plugins and hosts run with. */
export const PATH: string = envGet("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
/** Proto packages the fixtures use directly; their imports are added. */
const PROTO_ROOTS = [
  "pluggableharness/tool/v1",
  "pluggableharness/kernel/v1",
  "pluggableharness/frontend/v1",
  "pluggableharness/event/v1",
];

// ---------------------------------------------------------------------------
// Prerequisites (checked once, at module load)

function envGet(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no env permission: reported by missingPrerequisite
  }
}

const INSTALL_HINT =
  "install golang-go golang-github-hashicorp-go-plugin-dev golang-google-grpc-dev golang-google-protobuf-dev protobuf-compiler";

function onPath(name: string): string | undefined {
  for (const dir of PATH.split(":")) {
    if (!dir) continue;
    try {
      const p = join(dir, name);
      const st = Deno.statSync(p);
      if (st.isFile && ((st.mode ?? 0o755) & 0o111) !== 0) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function missingPrerequisite(): string | undefined {
  if (Deno.build.os === "windows") return "Windows is not supported";
  const names = ["read", "write", "env", "run"] as const;
  if (
    names.some((name) =>
      Deno.permissions.querySync({ name }).state !== "granted"
    )
  ) {
    return "it needs read, write, env and run permissions (deno test -A)";
  }
  if (!onPath("go")) return `go not found on PATH; ${INSTALL_HINT}`;
  if (!onPath("protoc")) return `protoc not found on PATH; ${INSTALL_HINT}`;
  const sources: [string, string][] = [
    ["github.com/hashicorp/go-plugin", "golang-github-hashicorp-go-plugin-dev"],
    ["google.golang.org/grpc/cmd/protoc-gen-go-grpc", "golang-google-grpc-dev"],
    [
      "google.golang.org/protobuf/cmd/protoc-gen-go",
      "golang-google-protobuf-dev",
    ],
  ];
  for (const [pkg, deb] of sources) {
    if (!exists(join(GOCODE, "src", pkg))) {
      return `${GOCODE}/src/${pkg} not found; install ${deb} (${INSTALL_HINT})`;
    }
  }
  return undefined;
}

/** Why the Go interop tests and benchmarks cannot run here, if they cannot. */
export const SKIP: string | undefined = missingPrerequisite();

// ---------------------------------------------------------------------------
// Building the Go fixtures, once per run

/** Paths of the built Go fixtures. */
export interface Built {
  gotool: string;
  gohost: string;
  /** The reference frontend plugin in Go. */
  gofrontend: string;
}

/**
 * `go build` flags: -trimpath keeps the build cache keys of the generated
 * packages independent of the temporary workspace's path (so a second run
 * reuses them), and no symbol tables or DWARF make linking faster.
 */
const GO_BUILD = ["build", "-trimpath", "-ldflags=-s -w", "-o"];

let built: Promise<Built> | undefined;

/**
 * Builds the Go fixtures once (later calls share the result). The binaries
 * are kept in the user's cache directory under a key of every input (the
 * fixtures' sources, the .proto files they use, the Go toolchain and
 * Debian's Go sources), and the build runs under a file lock: the test
 * files of one `deno test --parallel` run (and later runs, until an input
 * changes) build once instead of once each.
 */
export function build(): Promise<Built> {
  built ??= cachedBuild();
  return built;
}

const FIXTURE_NAMES = ["gotool", "gohost", "gofrontend"] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

function builtIn(bin: string): Built {
  return {
    gotool: join(bin, "gotool"),
    gohost: join(bin, "gohost"),
    gofrontend: join(bin, "gofrontend"),
  };
}

/** The cache directory: `$XDG_CACHE_HOME` or `~/.cache`, else the temp dir. */
function cacheRoot(): string {
  const xdg = envGet("XDG_CACHE_HOME");
  const home = envGet("HOME");
  const base = xdg || (home ? join(home, ".cache") : Deno.env.get("TMPDIR") ??
    "/tmp");
  return join(base, "ph-agent-tests", "go");
}

/** A digest of everything the build reads. */
async function inputsKey(): Promise<string> {
  const parts: string[] = [GO_BUILD.join(" ")];
  const version = await run("go", ["version"]);
  parts.push(new TextDecoder().decode(version.stdout));
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.isFile) files.push(path);
    }
  };
  await walk(GO_FIXTURES);
  for (const f of await protoClosure(PROTO_ROOTS)) {
    files.push(join(PROTO_DIR, f));
  }
  files.sort();
  const hash = createHash("sha256");
  for (const line of parts) hash.update(line);
  for (const f of files) {
    hash.update(`\0${f}\0`);
    hash.update(await Deno.readFile(f));
  }
  // Debian's Go sources: an upgrade touches their directories.
  for (const dir of ["", ...GOCODE_PACKAGES]) {
    const st = await Deno.stat(join(GOCODE, "src", dir)).catch(() => null);
    hash.update(`\0${dir}:${st?.mtime?.getTime() ?? "none"}`);
  }
  return hash.digest("hex").slice(0, 24);
}

async function cachedBuild(): Promise<Built> {
  const root = cacheRoot();
  await Deno.mkdir(root, { recursive: true });
  const key = await inputsKey();
  const dir = join(root, key);
  const done = join(dir, "complete");
  const lock = await Deno.open(join(root, `${key}.lock`), {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    if (!exists(done)) {
      const ws = await Deno.makeTempDir({ dir: root, prefix: "build-" });
      try {
        await buildFixtures(ws);
        await Deno.remove(dir, { recursive: true }).catch(() => {});
        await Deno.rename(join(ws, "bin"), dir);
        await Deno.writeTextFile(done, key);
      } finally {
        await Deno.remove(ws, { recursive: true }).catch(() => {});
      }
    }
    // Marks this build used, and removes builds nobody used for a day
    // (other checkouts of the repository may share the cache, so a build
    // of other inputs is not necessarily stale).
    const now = new Date();
    await Deno.utime(done, now, now);
    for await (const e of Deno.readDir(root)) {
      if (!e.isDirectory || e.name === key) continue;
      const path = join(root, e.name);
      const used = (await Deno.stat(join(path, "complete")).catch(() =>
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
  for (const name of FIXTURE_NAMES) {
    if (!exists(join(dir, name))) {
      throw new Error(`the cached Go build ${dir} has no ${name}`);
    }
  }
  return builtIn(dir);
}

async function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Deno.CommandOutput> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: options.cwd ?? REPO,
    ...(options.env ? { env: options.env, clearEnv: true } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const dec = new TextDecoder();
    throw new Error(
      `${cmd} ${args.join(" ")} failed (exit ${out.code}):\n${
        dec.decode(out.stderr)
      }${dec.decode(out.stdout)}`,
    );
  }
  return out;
}

/** The .proto files under `roots` plus everything they import (not google/). */
async function protoClosure(roots: string[]): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file) || file.startsWith("google/")) return;
    seen.add(file);
    const text = await Deno.readTextFile(join(PROTO_DIR, file));
    for (const m of text.matchAll(/^import\s+(?:public\s+)?"([^"]+)";/gm)) {
      await visit(m[1]!);
    }
  };
  for (const root of roots) {
    for await (const e of Deno.readDir(join(PROTO_DIR, root))) {
      if (e.isFile && e.name.endsWith(".proto")) {
        await visit(`${root}/${e.name}`);
      }
    }
  }
  return [...seen].sort();
}

/** Builds the fixtures in the workspace `ws`, into `ws/bin`. */
async function buildFixtures(ws: string): Promise<void> {
  const bin = join(ws, "bin");
  const base = Deno.env.toObject();
  const goEnv = (gopath: string): Record<string, string> => ({
    ...base,
    // Offline, GOPATH mode, against Debian's packaged sources.
    GO111MODULE: "off",
    GOPROXY: "off",
    GOFLAGS: "",
    GOPATH: gopath,
    CGO_ENABLED: "0",
    ...(base.GOCACHE || base.HOME || base.XDG_CACHE_HOME
      ? {}
      : { GOCACHE: join(ws, "gocache") }),
  });
  const started = performance.now();
  const step = (label: string, t0: number) =>
    console.log(
      `interop_go_test: build: ${label} ${
        (performance.now() - t0).toFixed(0)
      } ms`,
    );

  // 1. Debian's current generators (its protoc-gen-go 1.3 rejects proto3
  //    `optional`), built from the packaged sources.
  let t0 = performance.now();
  await run("go", [
    ...GO_BUILD,
    `${bin}/`,
    "google.golang.org/protobuf/cmd/protoc-gen-go",
    "google.golang.org/grpc/cmd/protoc-gen-go-grpc",
  ], { env: goEnv(GOCODE) });
  step("protoc-gen-go + protoc-gen-go-grpc", t0);

  // 2. Go code of the contracts the fixtures use, at
  //    <ws>/src/phagent/gen/pluggableharness/<area>/v1 (from go_package).
  t0 = performance.now();
  const files = await protoClosure(PROTO_ROOTS);
  const src = join(ws, "src");
  await Deno.mkdir(src, { recursive: true });
  await run("protoc", [
    "-I",
    PROTO_DIR,
    `--plugin=protoc-gen-go=${bin}/protoc-gen-go`,
    `--plugin=protoc-gen-go-grpc=${bin}/protoc-gen-go-grpc`,
    `--go_out=${src}`,
    "--go_opt=paths=import",
    `--go-grpc_out=${src}`,
    "--go-grpc_opt=paths=import",
    ...files,
  ]);
  step(`protoc (${files.length} files)`, t0);

  // 3. Both fixtures in one go build.
  t0 = performance.now();
  await run("go", [
    ...GO_BUILD,
    `${bin}/`,
    "./gotool",
    "./gohost",
    "./gofrontend",
  ], {
    cwd: GO_FIXTURES,
    env: goEnv(`${ws}:${GOCODE}`),
  });
  step("gotool + gohost + gofrontend", t0);
  step("total", started);
  // The generators are build tools, not fixtures.
  await Deno.remove(join(bin, "protoc-gen-go"));
  await Deno.remove(join(bin, "protoc-gen-go-grpc"));
}
