/**
 * The small in-process test files of `tests/`, `cli/`, `proto/` and
 * `tools/` (none starts an `agent` or kernel process) in one test module,
 * and the guards of every aggregate `tests/unit_*_test.ts`.
 *
 * Why the files run here and not as modules of their own: see
 * tests/unit_config_test.ts. `deno task test` skips each of them by name
 * (the `--ignore` of deno.json's `test` task), and whole folders whose every
 * test file an aggregate imports (kernel/, contract/, config/, plugins/) by
 * their glob. The guards below fail, naming the file, when a test file under
 * those folders is imported by no aggregate, when one is imported twice, or
 * when the `--ignore` list and the aggregates' imports disagree (a file
 * that ran nowhere, or twice).
 *
 * @module
 */
import assert from "node:assert/strict";
import { relative } from "node:path";

import "./agent_cli_verify_test.ts";
import "./anthropic_roster_test.ts";
import "./anthropic_sse_test.ts";
import "./forge_code_cache_test.ts";
import "./installation_key_grant_test.ts";
import "./junit_slowest_test.ts";
import "./memory_text_test.ts";
import "./openai_roster_test.ts";
import "./openai_sse_test.ts";
import "./plugin_identity_launch_test.ts";
import "./provider_http_test.ts";
import "./state_bus_overflow_test.ts";
import "./state_corruption_test.ts";
import "../cli/render/events_test.ts";
import "../proto/frame_test.ts";
import "../proto/gen_test.ts";
import "../proto/handshake_test.ts";
import "../tools/layering_test.ts";

/** The folders all of whose test files run in aggregates, skipped by glob. */
const FOLDERS = ["kernel", "contract", "config", "plugins"];

/**
 * Files that match `deno test`'s test-file pattern but hold no test (each
 * would cost a worker for nothing): skipped by name.
 */
const NOT_TEST_MODULES = ["cli/commands/test.ts"];

const REPO = new URL("..", import.meta.url);

async function* testFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && e.name !== "testdata") yield* testFiles(path);
    else if (e.isFile && e.name.endsWith("_test.ts")) yield path;
  }
}

/** Each aggregate (repository-relative) with the test files it imports. */
async function aggregates(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const dir = new URL("./", import.meta.url);
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !/^unit_.+_test\.ts$/.test(e.name)) continue;
    const url = new URL(e.name, dir);
    const source = await Deno.readTextFile(url);
    const imports = [
      ...source.matchAll(/^import "(\.\.?\/[^"]+_test\.ts)";$/gm),
    ].map((m) => relative(REPO.pathname, new URL(m[1]!, url).pathname));
    out.set(`tests/${e.name}`, imports);
  }
  return out;
}

Deno.test("every test file under kernel/, contract/, config/ and plugins/ is imported by a tests/unit_*_test.ts aggregate (deno task test skips those folders)", async () => {
  const imported = new Set([...(await aggregates()).values()].flat());
  const missing: string[] = [];
  for (const folder of FOLDERS) {
    for await (const f of testFiles(new URL(folder, REPO).pathname)) {
      const path = relative(REPO.pathname, f);
      if (!imported.has(path)) missing.push(path);
    }
  }
  assert.deepEqual(
    missing.sort(),
    [],
    `import each in one tests/unit_*_test.ts aggregate: ${
      missing.map((f) => `import "../${f}";`).join(" ")
    }`,
  );
});

Deno.test("no test file is imported by two aggregates, nor twice by one (its tests would run twice)", async () => {
  const seen = new Map<string, string>();
  const twice: string[] = [];
  for (const [aggregate, files] of await aggregates()) {
    for (const f of files) {
      const first = seen.get(f);
      if (first) twice.push(`${f} (${first} and ${aggregate})`);
      seen.set(f, aggregate);
    }
  }
  assert.deepEqual(twice, []);
});

Deno.test("deno task test --ignore's exactly deno.json's exclude (its --ignore replaces it), the aggregated folders, the other files the aggregates import and the files that hold no test", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", REPO)),
  );
  const command = String(config.tasks.test.command);
  const ignore = /--ignore=(\S+)/.exec(command)?.[1]?.split(",") ?? [];
  const others = [...(await aggregates()).values()].flat().filter((f) =>
    !FOLDERS.some((folder) => f.startsWith(`${folder}/`))
  );
  assert.deepEqual(
    [...ignore].sort(),
    [
      ...config.exclude,
      ...FOLDERS.map((f) => `${f}/**/*_test.ts`),
      ...others,
      ...NOT_TEST_MODULES,
    ].sort(),
    command,
  );
});

Deno.test("the files deno task test skips as holding no test declare none (else an aggregate must import them)", async () => {
  for (const f of NOT_TEST_MODULES) {
    const source = await Deno.readTextFile(new URL(f, REPO));
    assert.ok(!/\bDeno\.test\b/.test(source), `${f} declares a test`);
  }
});
