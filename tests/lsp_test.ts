/**
 * `builtin/lsp` (issue 17 part 7) through a real session: the scripted
 * model writes a TypeScript file with a type error through the filesystem
 * tool; the pinned Deno's `deno lsp`, started by the provider inside its
 * sandbox, reports it, and the next model request carries
 * `<cp:lsp-diagnostics path="bad.ts" count="1">`; after the fix the same
 * channel says `count="0"`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import type { SessionEvent } from "../kernel/mod.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { makeProject } from "./_agent_project.ts";

const DENO = Deno.execPath();

const write = (id: string, content: string) => ({
  tool_calls: [{
    id,
    name: "write_file",
    arguments: { path: "bad.ts", content },
  }],
});

Deno.test("builtin/lsp: deno lsp reports the type error the model wrote, as <cp:lsp-diagnostics>, and its fix as count 0", async () => {
  await using p = await makeProject({
    turns: [
      write("w1", 'const x: number = "oops";\nexport { x };\n'),
      {
        // The error arrives with the write's result, in the next request.
        expect: [
          '<cp:lsp-diagnostics path="bad.ts" count="1">',
          "bad.ts:1:7: Type 'string' is not assignable to type 'number'.",
        ],
        ...write("w2", "const x: number = 1;\nexport { x };\n"),
      },
      { expect: 'count="0">No errors left in bad.ts.', text: "Fixed." },
    ],
    files: { "deno.json": "{}\n" },
    extraRequired: 'lsp = { source = "builtin/lsp", version = "~> 0.1" }',
    // Generous bounds: a cold TypeScript server takes seconds on a loaded
    // machine; the check waits on the answer, never on a sleep.
    extraProviders: `
provider "lsp" {
  command      = [${JSON.stringify(DENO)}, "lsp"]
  extensions   = [".ts"]
  timeout_ms   = 120000
  allow_run    = [${JSON.stringify(DENO)}]
  allow_read   = ["."]
  allow_inject = true
}

hook "post-tool-call" {
  provider   = "lsp"
  mode       = "observe"
  timeout_ms = 150000
}
`,
  });
  await using kernel = await openKernel(p.dir, {
    builtins: BUILTINS,
    env: p.env,
  });
  const events: SessionEvent[] = [];
  const run = kernel.run("Write bad.ts", {
    approve: () => Promise.resolve({ decision: "allow", scope: "once" }),
  });
  for await (const e of run) events.push(e);
  const outcome = await run.result;
  assert.equal(outcome.status, "completed", JSON.stringify(outcome.error));
  assert.equal(outcome.finalText, "Fixed.");
  const lsp = events.flatMap((e) =>
    e.type === "control" && e.channel === "lsp-diagnostics" ? [e] : []
  );
  assert.deepEqual(
    lsp.map((e) => [e.attributes.path, e.attributes.count, e.source]),
    [["bad.ts", "1", "lsp"], ["bad.ts", "0", "lsp"]],
  );
  assert.match(lsp[0]!.body, /\[deno-ts 2322\]/);
});
