/**
 * The reference frontend plugin in Go (tests/go/gofrontend), started by
 * our TypeScript kernel (`Kernel.startFrontend`), drives a real session of
 * the scripted model over the callback channel: CreateSession,
 * SubmitInput, ReadEvents, ResolvePlanDecision (it allows the write that
 * policy asks about), DetachSession. Built offline like the other Go
 * fixtures (tests/_go_build.ts); skipped, with the reason, without Go.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openKernel } from "../kernel/kernel.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { build, PATH, SKIP } from "./_go_build.ts";

if (SKIP) console.error(`interop_go_frontend_test: skipped: ${SKIP}`);

Deno.test({
  name:
    "a Go frontend plugin drives a real session over the callback channel: it creates the session, submits the prompt and allows the plan item that asks",
  ignore: SKIP !== undefined,
  async fn() {
    const { gofrontend } = await build();
    const root = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "ph-agent-gofrontend-" }),
    );
    try {
      const dir = `${root}/project`;
      await Deno.mkdir(`${dir}/gofront`, { recursive: true });
      // In the plugin's folder: the OS sandbox binds it as the plugin's own.
      await Deno.copyFile(gofrontend, `${dir}/gofront/gofrontend`);
      await Deno.chmod(`${dir}/gofront/gofrontend`, 0o755);
      await Deno.writeTextFile(
        `${dir}/gofront/plugin.json`,
        JSON.stringify({
          name: "gofront",
          version: "0.1.0",
          category: "frontend",
          protocol_version: 1,
          runtime: "executable",
          entrypoint: "gofrontend",
          capabilities: {},
          config_schema: [{
            name: "prompt",
            type: "string",
            description: "The prompt to send.",
          }],
        }),
      );
      await Deno.writeTextFile(
        `${dir}/script.json`,
        JSON.stringify({
          turns: [
            {
              tool_calls: [{
                id: "toolu_w",
                name: "write_file",
                arguments: { path: "go.txt", content: "from go\n" },
              }],
            },
            { text: "done" },
          ],
        }),
      );
      await Deno.writeTextFile(
        `${dir}/agent.hcl`,
        `required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  gofront  = { source = "./gofront", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

provider "gofront" {
  prompt = "write go.txt"
}

policy "writes_ask" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = ["fs.*"]
}
`,
      );
      await using kernel = await openKernel(dir, {
        builtins: BUILTINS,
        env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
        sessionsDir: `${root}/sessions`,
      });
      const fe = await kernel.startFrontend("gofront");
      const exit = await fe.exited;
      assert.deepEqual([exit.code, exit.signal, exit.crashed], [
        0,
        null,
        false,
      ]);
      assert.equal(await Deno.readTextFile(`${dir}/go.txt`), "from go\n");
      const { sessions } = await kernel.sessions.list();
      assert.equal(sessions.length, 1);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
