import assert from "node:assert/strict";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { DescEnum, DescFile, DescMessage } from "@bufbuild/protobuf";
import { generate } from "./generate.ts";
import { KernelCallbackService } from "./gen/pluggableharness/kernel/v1/service_pb.ts";

const GEN_DIR = fileURLToPath(new URL("./gen", import.meta.url));
const PLUGGABLEHARNESS_GEN_DIR = join(GEN_DIR, "pluggableharness");

/** Lists every file below `root` as a "/"-separated path relative to it, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        await walk(path);
      } else {
        files.push(relative(root, path).split(sep).join("/"));
      }
    }
  }
  await walk(root);
  return files.sort();
}

/** Returns why two trees differ at their first differing file, or undefined. */
async function firstDifference(
  expectedRoot: string,
  actualRoot: string,
): Promise<string | undefined> {
  const expected = new Set(await listFiles(expectedRoot));
  const actual = new Set(await listFiles(actualRoot));
  const all = [...new Set([...expected, ...actual])].sort();
  for (const path of all) {
    if (!actual.has(path)) {
      return `"proto/gen/${path}" is not produced by the generator any more`;
    }
    if (!expected.has(path)) {
      return `"proto/gen/${path}" is missing`;
    }
    const [want, got] = await Promise.all([
      Deno.readFile(join(expectedRoot, path)),
      Deno.readFile(join(actualRoot, path)),
    ]);
    if (
      want.length !== got.length || want.some((byte, i) => byte !== got[i])
    ) {
      return `"proto/gen/${path}" differs from freshly generated code`;
    }
  }
  return undefined;
}

/** Yields every enum of a message, including enums of nested messages. */
function* messageEnums(message: DescMessage): Generator<DescEnum> {
  yield* message.nestedEnums;
  for (const nested of message.nestedMessages) {
    yield* messageEnums(nested);
  }
}

/** Yields every enum declared in a file, top-level and nested. */
function* fileEnums(file: DescFile): Generator<DescEnum> {
  yield* file.enums;
  for (const message of file.messages) {
    yield* messageEnums(message);
  }
}

/** Imports every generated module below `proto/gen/pluggableharness` and returns its file descriptors. */
async function loadFileDescriptors(): Promise<DescFile[]> {
  const files: DescFile[] = [];
  for (const path of await listFiles(PLUGGABLEHARNESS_GEN_DIR)) {
    if (!path.endsWith(".ts")) continue;
    const url = new URL(
      `./gen/pluggableharness/${path}`,
      import.meta.url,
    );
    const module: Record<string, unknown> = await import(url.href);
    for (const value of Object.values(module)) {
      if (
        typeof value === "object" && value !== null &&
        (value as { kind?: unknown }).kind === "file"
      ) {
        files.push(value as DescFile);
      }
    }
  }
  return files;
}

Deno.test("proto/gen is up to date with the .proto files", async () => {
  const tmpDir = await Deno.makeTempDir({ prefix: "ph-proto-gen-" });
  try {
    const code = await generate(tmpDir);
    assert.equal(code, 0, `buf generate exited with code ${code}`);
    const difference = await firstDifference(GEN_DIR, tmpDir);
    assert.equal(
      difference,
      undefined,
      `proto/gen is stale: ${difference}; run \`deno task proto\` and commit the result`,
    );
  } finally {
    await Deno.remove(tmpDir, { recursive: true });
  }
});

Deno.test("every enum's zero value is *_UNSPECIFIED", async () => {
  const files = await loadFileDescriptors();
  assert.ok(
    files.length > 0,
    "no generated file descriptors under proto/gen/pluggableharness",
  );
  let enumCount = 0;
  for (const file of files) {
    for (const descEnum of fileEnums(file)) {
      enumCount++;
      const zero = descEnum.values.find((value) => value.number === 0);
      assert.ok(
        zero !== undefined,
        `enum ${descEnum.typeName} (${file.name}.proto) has no value with number 0`,
      );
      assert.ok(
        zero.name.endsWith("_UNSPECIFIED"),
        `enum ${descEnum.typeName} (${file.name}.proto): zero value "${zero.name}" does not end with _UNSPECIFIED`,
      );
    }
  }
  assert.ok(enumCount > 0, "no enums found in the generated descriptors");
});

Deno.test("KernelCallbackService has every callback RPC", () => {
  assert.equal(
    KernelCallbackService.typeName,
    "pluggableharness.kernel.v1.KernelCallbackService",
  );
  const expected = [
    "RunSession",
    "CountTokens",
    "Emit",
    "Log",
    "ExportSpans",
    "RecordMetrics",
    "GetTelemetryConfig",
    "GetConfig",
    "Publish",
    "Subscribe",
    "ReadEvents",
    "GetSession",
    "GetSessionState",
    "SubmitInput",
    "ResolvePlanDecision",
    "ResolveInteractive",
    "Interrupt",
    "CreateSession",
    "AttachSession",
    "ResumeSession",
    "DetachSession",
    "ListSessions",
    "PublishMetadata",
    "RetractMetadata",
    "ListMetadata",
    "StreamDeltas",
    "InvokeSlashCommand",
    "TriggerAction",
    // Our extension (the control plane's plugin-inject channel).
    "InjectControl",
    // Our extensions for delegation (builtin/agents).
    "MergeWorktree",
    "SendMailbox",
    // Our extensions for frontends (the web UI): rendered events, the
    // hash-chain check.
    "RenderEvents",
    "VerifySession",
  ];
  const streaming = new Set([
    "Subscribe",
    "ReadEvents",
    "StreamDeltas",
    "RenderEvents",
  ]);
  assert.deepEqual(
    KernelCallbackService.methods.map((method) => method.name),
    expected,
  );
  for (const method of KernelCallbackService.methods) {
    assert.equal(
      method.methodKind,
      streaming.has(method.name) ? "server_streaming" : "unary",
      `KernelCallbackService.${method.name} has the wrong shape`,
    );
  }
});

/**
 * The generated files `entry` loads before any `import()` runs: the
 * closure of its static code imports (type-only and dynamic ones left
 * out), from `deno info --json`, as paths relative to `proto/gen/`.
 */
async function staticGeneratedFiles(entry: string): Promise<string[]> {
  const root = fileURLToPath(new URL("../", import.meta.url));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--no-npm", "--no-remote", "--no-lock", entry],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info: {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
    }[];
  } = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set(info.roots);
  const queue = [...info.roots];
  while (queue.length > 0) {
    for (const d of modules.get(queue.shift()!)?.dependencies ?? []) {
      const to = d.code?.specifier;
      if (to === undefined || d.isDynamic || seen.has(to)) continue;
      seen.add(to);
      queue.push(to);
    }
  }
  return [...seen]
    .filter((s) => s.startsWith("file:"))
    .map((s) => relative(GEN_DIR, fileURLToPath(s)).split(sep).join("/"))
    .filter((p) => !p.startsWith(".."))
    .sort();
}

Deno.test("the kernel's static module graph holds no descriptor of the context, memory, slash-command, frontend, widget or hook-subscriber services: they load with the first plugin of their kind", async () => {
  // `agent run`'s module: `cli/main.ts` loads it only when `run` is named.
  const loaded = await staticGeneratedFiles("cli/commands/run.ts");
  // What a session with a model and tool plugins needs is there...
  for (
    const f of [
      "pluggableharness/model/v1/service_pb.ts",
      "pluggableharness/tool/v1/service_pb.ts",
      "grpc/health/v1/health_pb.ts",
    ]
  ) assert.ok(loaded.includes(f), `${f} is not in the kernel's graph`);
  // ...and the other services' descriptors are not.
  const deferred = loaded.filter((f) =>
    /^pluggableharness\/(context|memory|slashcommand|frontend|widget)\/v1\/(service|rpc_request|rpc_response)_pb\.ts$/
      .test(f) || f === "pluggableharness/hook/v1/service_pb.ts"
  );
  assert.deepEqual(deferred, []);
});
