/**
 * Concurrency of the filesystem tools (kernel.md §6.3): the declared
 * `ConcurrencySpec`s, and through the agent loop (scripted model, real
 * plugin subprocess) that two edits of different files overlap in time
 * while two edits of the same file run one after the other.
 *
 * The proof is deterministic: the tool endpoint is wrapped so that the
 * edit of a.txt does not finish until the edit of b.txt has started (a
 * serialized schedule would make the session fail after 10 s instead),
 * and the second edit of c.txt must start after the first has ended.
 */
import assert from "node:assert/strict";
import {
  concurrencyKey,
  modelEndpointOf,
  PluginHost,
  runSession,
  type SessionSpec,
  SqliteSessionStore,
  type ToolEndpoint,
  toolEndpointOf,
} from "../kernel/mod.ts";
import { readManifest } from "../plugins/sdk/mod.ts";
import { ModelService } from "../proto/gen/pluggableharness/model/v1/service_pb.ts";
import { ToolService } from "../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { PATH, REPO } from "./_helpers.ts";

const edit = (id: string, path: string, from: string, to: string) => ({
  id,
  name: "edit_file",
  arguments: { path, old_str: from, new_str: to },
});

const SCRIPT = {
  turns: [
    {
      text: "Editing four places at once.",
      tool_calls: [
        edit("e1", "a.txt", "a", "A"),
        edit("e2", "b.txt", "b", "B"),
        edit("e3", "c.txt", "one", "ONE"),
        edit("e4", "c.txt", "two", "TWO"),
      ],
    },
    { expect: "c.txt", text: "Done." },
  ],
};

function timeout(ms: number): { promise: Promise<"timeout">; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

Deno.test("filesystem: edits of different files overlap, edits of one file serialize (through the agent loop)", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-fs-concurrency-" }),
  );
  try {
    await Deno.writeTextFile(`${dir}/a.txt`, "a\n");
    await Deno.writeTextFile(`${dir}/b.txt`, "b\n");
    await Deno.writeTextFile(`${dir}/c.txt`, "one\ntwo\n");
    await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify(SCRIPT));
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const scripted = await host.launch({
      manifest: await readManifest(`${REPO}/plugins/scripted/plugin.json`),
      entrypoint: `${REPO}/plugins/scripted/main.ts`,
      grant: { read: [dir] },
    });
    await scripted.client(ModelService).configure({
      config: { script: `${dir}/script.json` },
    });
    const fs = await host.launch({
      manifest: await readManifest(`${REPO}/plugins/filesystem/plugin.json`),
      entrypoint: `${REPO}/plugins/filesystem/main.ts`,
      grant: { read: [dir], write: [dir] },
    });
    await fs.client(ToolService).configure({ config: { roots: [dir] } });
    const real = toolEndpointOf(fs);
    const schemas = await real.schemas();

    // The declared specs, as the kernel turns them into keys.
    const byName = (n: string) => schemas.find((s) => s.name === n)!;
    for (const name of ["read_file", "write_file", "edit_file"]) {
      const s = byName(name);
      assert.deepEqual(
        [s.concurrency?.safe, s.concurrency?.keyFields],
        [true, ["path"]],
        name,
      );
      const key = (path: string) =>
        concurrencyKey(s, { provider: "fs", input: { path } });
      assert.notEqual(key("a.txt"), key("b.txt"), `${name}: distinct paths`);
      assert.equal(key("a.txt"), key("a.txt"), `${name}: the same path`);
    }
    const multi = byName("multi_edit");
    assert.deepEqual(
      [multi.concurrency?.safe, multi.concurrency?.keyFields],
      [false, []],
    );
    assert.equal(
      concurrencyKey(multi, { provider: "fs", input: { files: [] } }),
      "fs\u0000*",
      "multi_edit takes the provider-wide lock",
    );

    // Through the loop, with the endpoint wrapped to observe the schedule.
    const marks: string[] = [];
    const started = new Map(
      ["e1", "e2", "e3", "e4"].map((id) => [id, Promise.withResolvers<void>()]),
    );
    let overlap: "overlapped" | "timeout" | undefined;
    const observed: ToolEndpoint = {
      identity: real.identity,
      schemas: (o) => real.schemas(o),
      preview: (call, o) => real.preview!(call, o),
      async *invoke(call, options) {
        marks.push(`${call.id}+`);
        started.get(call.id)?.resolve();
        if (call.id === "e1") {
          const t = timeout(10_000);
          overlap = await Promise.race([
            started.get("e2")!.promise.then(() => "overlapped" as const),
            t.promise,
          ]);
          t.cancel();
        }
        if (call.id === "e3") {
          // Give e4 every chance to start early if the schedule allowed it.
          const t = timeout(200);
          await Promise.race([started.get("e4")!.promise, t.promise]);
          t.cancel();
        }
        for await (const event of real.invoke(call, options)) {
          const c = event.event.case;
          // The call is over for the loop once its terminal event arrives.
          if (c === "result" || c === "error") marks.push(`${call.id}-`);
          yield event;
        }
      },
    };
    await using store = new SqliteSessionStore({ dir: `${dir}/.sessions` });
    const spec: SessionSpec = {
      profile: "default",
      models: [{ provider: "scripted", id: "scripted" }],
      tools: new Map([["fs", schemas]]),
      policies: [{
        name: "edits_ok",
        match: { provider: "fs" },
        action: "allow",
      }],
      workingDirectory: dir,
    };
    const run = runSession(spec, {
      store,
      models: new Map([["scripted", modelEndpointOf(scripted, "scripted")]]),
      tools: new Map([["fs", observed]]),
    }, { prompt: "Edit the files" });
    for await (const _ of run) { /* drain */ }
    const result = await run.result;
    assert.equal(result.status, "completed", JSON.stringify(result.error));

    assert.equal(overlap, "overlapped", "e2 started while e1 was running");
    assert.ok(
      marks.indexOf("e2+") < marks.indexOf("e1-"),
      `a.txt and b.txt overlap: ${marks.join(" ")}`,
    );
    assert.ok(
      marks.indexOf("e4+") > marks.indexOf("e3-"),
      `the two edits of c.txt do not overlap: ${marks.join(" ")}`,
    );
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "A\n");
    assert.equal(await Deno.readTextFile(`${dir}/b.txt`), "B\n");
    assert.equal(
      await Deno.readTextFile(`${dir}/c.txt`),
      "ONE\nTWO\n",
      "both edits of c.txt applied, in declaration order",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
