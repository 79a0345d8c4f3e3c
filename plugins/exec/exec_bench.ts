/**
 * What the exec provider costs besides the command itself: parsing a
 * command line into segments, judging it against command rules, and
 * starting and reaping `bash -c true` as a process group.
 *
 *   deno bench -A plugins/exec/exec_bench.ts
 */
import { parseShellCommand } from "../../contract/shell_command.ts";
import { evaluatePolicy, type PolicyRule } from "../../contract/policy.ts";
import { ShellProcess } from "./_process.ts";

const TYPICAL = "git status --short && git diff --stat | tail -5";
const LONG = `cd build && make -j4 all 2>&1 | tee build.log; ` +
  `find . -name '*.o' -exec rm -f {} \\; ; sudo -u bob bash -c 'ls $(pwd)'`;
const RULES: PolicyRule[] = [
  ...["ls", "cat", "wc", "grep", "head", "tail", "git status", "git diff"]
    .map((c, i): PolicyRule => ({
      name: `allow_${i}`,
      match: { provider: "sh", command: `${c}*` },
      action: "allow",
    })),
  { name: "no_rm", match: { command: "rm *" }, action: "deny" },
  { name: "no_sudo", match: { command: "sudo *" }, action: "deny" },
  { name: "sh_asks", match: { provider: "sh" }, action: "ask" },
];
const call = (command: string) => ({
  kind: "resource" as const,
  provider: "sh",
  toolName: "bash",
  risk: "high" as const,
  command,
});

Deno.bench("parseShellCommand: typical line (2 commands, a pipe)", () => {
  parseShellCommand(TYPICAL);
});

Deno.bench(
  "parseShellCommand: long line (wrappers, find -exec, bash -c)",
  () => {
    parseShellCommand(LONG);
  },
);

Deno.bench("evaluatePolicy: typical line, 11 rules", () => {
  evaluatePolicy(RULES, call(TYPICAL));
});

Deno.bench("evaluatePolicy: long line, 11 rules", () => {
  evaluatePolicy(RULES, call(LONG));
});

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";

Deno.bench("ShellProcess: start and reap `bash -c true`", async () => {
  const p = ShellProcess.start("true", {
    cwd: "/",
    env: { PATH },
    onChunk: () => {},
  });
  await p.finished;
});
