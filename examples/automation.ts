/**
 * Scripting a session with the library API: open a kernel on a project,
 * run one prompt, approve writes only inside one directory (through the
 * `approve` callback), and print the events as they come.
 *
 *     deno run -A examples/automation.ts [project-dir] [prompt]
 *
 * Without a project directory it runs on a temporary copy of
 * examples/quickstart (removed afterwards). Outside this repository,
 * import from `jsr:@ph/agent` instead of `../mod.ts`.
 *
 * @module
 */
import { join, resolve } from "node:path";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  openKernel,
  sessionExitCode,
} from "../mod.ts";

const [dirArg, promptArg] = Deno.args;
let project = dirArg ? resolve(dirArg) : undefined;
let scratch: string | undefined;
if (!project) {
  scratch = await Deno.makeTempDir({ prefix: "agent-automation-" });
  project = join(scratch, "quickstart");
  await Deno.mkdir(join(project, ".agent"), { recursive: true });
  const from = new URL("./quickstart/", import.meta.url).pathname;
  for (
    const f of ["agent.hcl", "script.json", "notes.md", ".agent/agent.lock.hcl"]
  ) {
    await Deno.copyFile(join(from, f), join(project, f));
  }
}
const sandbox = project; // writes are approved only below this directory

/** Approves a write when its `path` resolves inside the sandbox. */
function approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
  const path = request.input.path;
  const inside = typeof path === "string" &&
    (resolve(project!, path) + "/").startsWith(sandbox + "/");
  console.log(
    `  approval: ${request.tool} ${String(path)} → ${
      inside ? "allow" : "deny"
    }`,
  );
  return Promise.resolve({
    decision: inside ? "allow" : "deny",
    scope: "once",
  });
}

let code = 1;
try {
  // `env` decides where sessions are stored; keep the scratch run's there.
  await using kernel = await openKernel(project, {
    ...(scratch
      ? {
        env: { ...Deno.env.toObject(), XDG_STATE_HOME: join(scratch, "state") },
      }
      : {}),
  });
  const ac = new AbortController();
  Deno.addSignalListener("SIGINT", () => ac.abort());
  const run = kernel.run(
    promptArg ?? "Summarize notes.md into SUMMARY.md",
    { approve, signal: ac.signal },
  );
  for await (const event of run) {
    switch (event.type) {
      case "session_started":
        console.log(`session ${event.sessionId}`);
        break;
      case "message":
        if (event.role === "assistant" && event.text) {
          console.log(`assistant: ${event.text}`);
        }
        break;
      case "tool_call":
        console.log(`  tool: ${event.tool} ${JSON.stringify(event.input)}`);
        break;
      case "tool_result":
        console.log(
          `  result: ${event.tool} ${event.isError ? "failed" : "ok"}`,
        );
        break;
      case "plan":
        for (const item of event.items) {
          console.log(`  plan: ${item.tool} → ${item.decision}`);
        }
        break;
      case "session_ended":
        console.log(
          `ended: ${event.status}, $${event.totalCostUsd.toFixed(4)}`,
        );
        break;
    }
  }
  const outcome = await run.result;
  console.log(`final answer: ${outcome.finalText}`);
  code = sessionExitCode(outcome);
} finally {
  if (scratch) await Deno.remove(scratch, { recursive: true });
}
Deno.exit(code);
