/**
 * The `agent` command line's entry at the package root, kept so that
 * `deno run -A main.ts …`, `deno task agent` and the root module's lazy
 * import keep working. The command line itself is `cli/main.ts`.
 *
 * @module
 */
export {
  AGENT_HELP,
  type AgentIo,
  type CliIo,
  processAgentIo,
  run,
} from "./cli/mod.ts";
import { processExitCode, run } from "./cli/mod.ts";

if (import.meta.main) {
  Deno.exit(processExitCode(await run(Deno.args)));
}
