/**
 * Shared helpers for the integration tests: launching the example and probe
 * plugins, reading tool results, checking processes, capturing logs.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { configure, type LogRecord, reset } from "@logtape/logtape";
import type { Plugin, PluginHost } from "../kernel/mod.ts";
import type { PermissionGrant } from "../contract/permissions.ts";
import {
  parseManifest,
  type PluginManifest,
  readManifest,
} from "../plugins/sdk/mod.ts";
import { denoRuntimeEnv } from "../contract/runtime_env.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { denoCacheDir } from "../kernel/process/_module_cache.ts";

export const REPO = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
export const ECHO_ENTRY = `${REPO}/plugins/echo/main.ts`;
export const PROBE_ENTRY = `${REPO}/tests/fixtures/probe/main.ts`;

/** The test process's PATH, for hosts whose environment is otherwise empty. */
export const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

/**
 * Deno's runtime settings of the test process, for a Deno child whose
 * environment is emptied or whose HOME is temporary: `DENO_DIR`, always
 * (the cache this process uses, so that the child finds what `.ci/run` and
 * this run fetched instead of starting from an empty cache of its own), and
 * the TLS, proxy and npm registry settings that are set (so that it fetches
 * what is missing the way this process can).
 */
export const DENO_ENV: Readonly<Record<string, string>> = {
  ...denoRuntimeEnv(Deno.env.toObject()),
  DENO_DIR: denoCacheDir(),
};

export async function launchEcho(
  host: PluginHost,
  options: { tcp?: boolean } = {},
): Promise<Plugin> {
  const manifest = await readManifest(`${REPO}/plugins/echo/plugin.json`);
  return host.launch({ manifest, entrypoint: ECHO_ENTRY }, options);
}

export async function launchProbe(
  host: PluginHost,
  capabilities: Partial<PluginManifest["capabilities"]> = {},
  grant: PermissionGrant = {},
  config?: JsonObject,
  as: {
    name?: string;
    manifestName?: string;
    subscribe?: string[];
    /** Launch it as another category (a frontend, to attach sessions). */
    category?: PluginManifest["category"];
  } = {},
): Promise<Plugin> {
  const base = await readManifest(`${REPO}/tests/fixtures/probe/plugin.json`);
  const manifest = parseManifest(
    {
      name: as.manifestName ?? base.name,
      version: base.version,
      category: as.category ?? base.category,
      protocol_version: 1,
      runtime: "deno",
      entrypoint: "main.ts",
      capabilities,
    },
    "probe/plugin.json",
  );
  return host.launch({
    manifest,
    entrypoint: PROBE_ENTRY,
    grant,
    ...(config ? { config } : {}),
    ...(as.name ? { name: as.name } : {}),
    ...(as.subscribe ? { subscribe: as.subscribe } : {}),
  });
}

/** Invokes a tool and returns its terminal result payload (throws on a tool error). */
export async function invoke(
  plugin: Plugin,
  toolName: string,
  args: JsonObject = {},
): Promise<JsonObject> {
  const tool = plugin.client(ToolService);
  let payload: JsonObject | undefined;
  for await (
    const r of tool.invoke({ call: { id: "c1", toolName, arguments: args } })
  ) {
    const ev = r.event?.event;
    if (ev?.case === "result") payload = ev.value.payload ?? {};
    if (ev?.case === "error") {
      throw new Error(`tool error: ${ev.value.message}`);
    }
  }
  if (!payload) throw new Error(`tool ${toolName} ended without a result`);
  return payload;
}

/** True while a process with this pid exists. */
export function pidAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

/** Waits until `check` is true or `ms` passes; returns the last value. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms = 5000,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return await check();
}

/** Routes every LogTape record under "ph-agent" into an array until disposed. */
export async function captureLogs(): Promise<
  { records: LogRecord[]; [Symbol.asyncDispose](): Promise<void> }
> {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (r) => records.push(r) },
    loggers: [
      { category: ["ph-agent"], lowestLevel: "trace", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  return { records, [Symbol.asyncDispose]: () => reset() };
}

/** The rendered text of a log record. */
export function renderRecord(r: LogRecord): string {
  return r.message.map((m) => typeof m === "string" ? m : JSON.stringify(m))
    .join("") +
    " " +
    JSON.stringify(r.properties);
}

/** What {@linkcode runDeno} captured. */
export interface DenoRun {
  /** The exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

/**
 * Runs `deno <args>` in the repository, without colour, and captures its
 * output (the example and CLI tests). The child always gets
 * {@linkcode DENO_ENV}, so it shares this process's cache even with an
 * emptied environment or another HOME.
 *
 * @param args The arguments after `deno`.
 * @param options More environment, and whether to start from an empty one.
 * @returns The exit code and output.
 */
export async function runDeno(
  args: string[],
  options: { env?: Record<string, string>; clearEnv?: boolean } = {},
): Promise<DenoRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO,
    env: { NO_COLOR: "1", ...DENO_ENV, ...options.env },
    ...(options.clearEnv ? { clearEnv: true } : {}),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}
