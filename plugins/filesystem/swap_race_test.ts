/**
 * Issue 21, defect 5: the filesystem tool checked a path and then used it,
 * so a concurrent directory/symlink swap made reads return content from
 * outside the roots and writes land outside them. This reproduces the
 * attack through the real plugin subprocess: a separate process swaps, as
 * fast as it can, a directory inside the root with a symbolic link to a
 * directory outside it (and a file with a symbolic link to a file outside
 * it) while read_file, write_file, edit_file and multi_edit run many
 * times. Bounded in count (60 rounds) and time (the swapper stops itself
 * after 60 s, and is killed at the end).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "@bufbuild/protobuf";
import { PluginHost } from "../../kernel/mod.ts";
import { ToolService } from "../../proto/gen/pluggableharness/tool/v1/service_pb.ts";
import { readManifest } from "../sdk/mod.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const ENTRY = fileURLToPath(new URL("./main.ts", import.meta.url));
const ROUNDS = 60;

/** Swaps `root/d` and `root/g.txt` with symbolic links outside, in a loop. */
const SWAPPER = `
const [root, outside, counter] = Deno.args;
const names = ["d", "g.txt"];
const step = (f) => { try { f(); } catch { /* healed below */ } };
const exists = (p) => { try { Deno.lstatSync(p); return true; } catch { return false; } };
// Back to the real entries (a write may have created one in a gap).
const heal = () => {
  for (const name of names) {
    const here = root + "/" + name;
    if (!exists(here + ".real")) continue;
    step(() => Deno.removeSync(here, { recursive: true }));
    step(() => Deno.renameSync(here + ".real", here));
  }
};
const end = Date.now() + 60_000;
let n = 0;
while (Date.now() < end) {
  heal();
  for (const name of names) {
    const here = root + "/" + name;
    step(() => Deno.renameSync(here, here + ".real"));
    step(() => {
      Deno.symlinkSync(outside + "/" + name, here + ".link");
      Deno.renameSync(here + ".link", here);
    });
  }
  for (const name of names) {
    const here = root + "/" + name;
    step(() => Deno.removeSync(here));
    step(() => Deno.renameSync(here + ".real", here));
  }
  if (++n % 100 === 0) {
    Deno.writeTextFileSync(counter, String(n));
    if (exists(counter + ".stop")) break;
  }
}
heal();
Deno.writeTextFileSync(counter, String(n));
`;

/** Every file below `dir` with its content (symlinks by their target). */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const visit = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isSymlink) out.set(p, `-> ${await Deno.readLink(p)}`);
      else if (e.isDirectory) {
        out.set(p, "dir");
        await visit(p);
      } else out.set(p, await Deno.readTextFile(p));
    }
  };
  await visit(dir);
  return out;
}

Deno.test("defect 5: a concurrent directory/symlink swap never makes the filesystem tool read or write outside the roots", async () => {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "ph-fs-race-" }),
  );
  const root = `${dir}/root`;
  const outside = `${dir}/outside`;
  const counter = `${dir}/swaps`;
  await Deno.mkdir(`${root}/d`, { recursive: true });
  await Deno.mkdir(`${outside}/d`, { recursive: true });
  await Deno.writeTextFile(`${root}/d/f.txt`, "inside\n");
  await Deno.writeTextFile(`${root}/d/e.txt`, "inside a\n");
  await Deno.writeTextFile(`${root}/g.txt`, "inside\n");
  await Deno.writeTextFile(`${outside}/d/f.txt`, "OUTSIDE\n");
  await Deno.writeTextFile(`${outside}/d/e.txt`, "OUTSIDE a\n");
  await Deno.writeTextFile(`${outside}/g.txt`, "OUTSIDE\n");
  const before = await snapshot(outside);
  await Deno.writeTextFile(`${dir}/swapper.ts`, SWAPPER);
  let swapper: Deno.ChildProcess | undefined;
  try {
    await using host = new PluginHost({ env: { PATH }, cwd: dir });
    const manifest = await readManifest(
      new URL("./plugin.json", import.meta.url),
    );
    // The Deno grant covers outside/ too: only the plugin's own checks
    // stand between the swap and the outside files (the worst case).
    const plugin = await host.launch({
      manifest,
      entrypoint: ENTRY,
      grant: { read: [dir], write: [dir] },
    });
    const tool = plugin.client(ToolService);
    await tool.configure({ config: { roots: [root] } });
    let id = 0;
    const call = async (
      toolName: string,
      args: JsonObject,
    ): Promise<{ ok: boolean; payload: JsonObject; message: string }> => {
      let last;
      for await (
        const r of tool.invoke({
          call: {
            id: `c${id++}`,
            toolName,
            arguments: args,
            callContext: {
              sessionId: "01SESSION",
              turnId: "01TURN",
              workingDirectory: root,
            },
          },
        })
      ) last = r.event?.event;
      if (last?.case === "result") {
        return { ok: true, payload: last.value.payload ?? {}, message: "" };
      }
      return {
        ok: false,
        payload: {},
        message: last?.case === "error" ? last.value.message : "",
      };
    };

    swapper = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        // Deno.symlink needs unscoped read and write permissions.
        "--allow-read",
        "--allow-write",
        `${dir}/swapper.ts`,
        root,
        outside,
        counter,
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    // Start only once the swapper swaps.
    for (let i = 0; i < 600; i++) {
      const n = await Deno.readTextFile(counter).catch(() => "0");
      if (Number(n) > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const leaked: string[] = [];
    let reads = 0;
    let writes = 0;
    for (let i = 0; i < ROUNDS; i++) {
      for (const path of ["d/f.txt", "g.txt"]) {
        const r = await call("read_file", { path });
        if (r.ok) {
          reads++;
          if (String(r.payload.content).includes("OUTSIDE")) {
            leaked.push(`read_file ${path}: ${r.payload.content}`);
          }
        }
      }
      const w = await call("write_file", {
        path: `d/new-${i}.txt`,
        content: `written ${i}\n`,
      });
      if (w.ok) writes++;
      const e = await call("edit_file", {
        path: "d/e.txt",
        old_str: i % 2 === 0 ? "a\n" : "b\n",
        new_str: i % 2 === 0 ? "b\n" : "a\n",
      });
      if (e.ok) writes++;
      const m = await call("multi_edit", {
        files: [
          { path: `d/m-${i}.txt`, content: `multi ${i}\n` },
          { path: "g.txt", content: "inside\n" },
        ],
      });
      if (m.ok) writes++;
    }
    await Deno.writeTextFile(`${counter}.stop`, "");
    const status = await swapper.status;
    swapper = undefined;
    assert.ok(status.success, "the swapper ran to its stop");
    const swaps = Number(await Deno.readTextFile(counter));

    assert.deepEqual(leaked, [], "no read returned outside content");
    assert.deepEqual(
      await snapshot(outside),
      before,
      "nothing outside the root was created or changed",
    );
    // The race was live, and the tool still worked through it.
    assert.ok(swaps > ROUNDS, `the swapper swapped (${swaps} times)`);
    assert.ok(
      reads + writes > 0,
      `some operations succeeded (${reads} reads, ${writes} writes)`,
    );
    console.log(
      `${swaps} swaps; ${reads}/${2 * ROUNDS} reads and ${writes}/${
        3 * ROUNDS
      } writes succeeded; 0 leaked`,
    );
  } finally {
    if (swapper) {
      swapper.kill("SIGKILL");
      await swapper.status;
    }
    await Deno.remove(dir, { recursive: true });
  }
});
