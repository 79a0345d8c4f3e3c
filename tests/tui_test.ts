/**
 * The terminal UI (builtin/tui) driven as a person uses it, in a real
 * pseudo-terminal: a private tmux server runs interactive `agent` on a
 * quickstart-like project with the scripted model. The test types a
 * prompt, sees the streamed answer, approves the write in the plan
 * dialog, checks the file, completes `@path` and `/command` words, runs
 * /cost and /help, interrupts a slow turn with Ctrl-C, resizes the window
 * and exits with a second Ctrl-C; then `agent --plan` shows plan mode in
 * the status line and offers to carry each plan out. Screens are compared with the golden
 * ones in tests/golden/ (session ids and the temporary path masked);
 * `UPDATE_GOLDEN=1` rewrites them, and the README's screenshots in
 * docs/screens/.
 *
 * Skipped only when tmux is missing and CI is not set; under CI=true a
 * missing tmux fails.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO } from "./_helpers.ts";

const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

function hasTmux(): boolean {
  try {
    return new Deno.Command("tmux", {
      args: ["-V"],
      stdout: "null",
      stderr: "null",
    })
      .outputSync().success;
  } catch {
    return false;
  }
}

const TMUX = hasTmux();
if (!TMUX && Deno.env.get("CI") === "true") {
  throw new Error(
    "tests/tui_test.ts: tmux is not installed, and CI=true (install the tmux package)",
  );
}

const SCRIPT = {
  description: "The quickstart's turns, then a slow one to interrupt.",
  turns: [
    {
      text: "I'll read the meeting notes first.",
      tool_calls: [{
        id: "toolu_read",
        name: "read_file",
        arguments: { path: "notes.md" },
      }],
      usage: { input_tokens: 1200, output_tokens: 40 },
    },
    {
      expect: "Release 0.4 slips",
      text: "Now I'll write the summary.",
      tool_calls: [{
        id: "toolu_write",
        name: "write_file",
        arguments: {
          path: "SUMMARY.md",
          content:
            "# Summary of the 12 March sync\n\n- Release 0.4 slips one week.\n\n## Action items\n\n- Ana: write the migration guide.\n- Bo: review it by Friday.\n",
        },
      }],
      usage: { input_tokens: 1500, output_tokens: 90 },
    },
    {
      expect: "SUMMARY.md",
      text:
        "Done: **SUMMARY.md** has the summary and `2` action items.\n\n```sh\ncat SUMMARY.md # to read it\n```",
      usage: { input_tokens: 1700, output_tokens: 14 },
    },
    {
      text:
        "This answer streams very slowly, word by word, so that it can be interrupted.",
      delay_ms: 1500,
      usage: { input_tokens: 1800, output_tokens: 20 },
    },
  ],
};

/** `agent --plan`: a plan, a rejection, a second plan, then its execution. */
const PLAN_SCRIPT = {
  description: "Plan mode in the terminal UI.",
  turns: [
    {
      expect: "Plan the release note",
      text: "Plan: write **NOTE.md** saying that release 0.4 slips.",
      usage: { input_tokens: 300, output_tokens: 20 },
    },
    {
      expect: "Name the week",
      text: "Plan: write **NOTE.md** saying that release 0.4 slips one week.",
      usage: { input_tokens: 350, output_tokens: 22 },
    },
    {
      expect: "The plan is approved",
      text: "Writing it.",
      tool_calls: [{
        id: "toolu_note",
        name: "write_file",
        arguments: {
          path: "NOTE.md",
          content: "Release 0.4 slips one week.\n",
        },
      }],
      usage: { input_tokens: 400, output_tokens: 30 },
    },
    {
      text: "NOTE.md is written.",
      usage: { input_tokens: 450, output_tokens: 5 },
    },
  ],
};

const PLAN_AGENT_HCL = `
required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
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

policy "all_ok" {
  match  = { provider = "fs" }
  action = "allow"
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
`;

const AGENT_HCL = `
required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  commands = { source = "builtin/commands", version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "commands" {
  allow_write = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_need_approval" {
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
  tools            = ["fs.*"]
  slash_commands   = ["commands.*"]
  max_turns        = 10
  max_cost_usd     = 0.50
  max_wall_clock_s = 300
}
`;

/** A private tmux server with one window running a command. */
class Tmux {
  /** The server's socket, inside the test's temporary directory. */
  constructor(readonly socket: string) {}

  run(...args: string[]): string {
    const out = new Deno.Command("tmux", {
      args: ["-S", this.socket, "-f", "/dev/null", ...args],
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
    if (!out.success) {
      throw new Error(
        `tmux ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
    return new TextDecoder().decode(out.stdout);
  }

  /** The pane as text (`escapes`: with colour and attribute sequences). */
  screen(escapes = false): string {
    return this.run(
      "capture-pane",
      "-p",
      ...(escapes ? ["-e"] : []),
      "-t",
      "tui",
    );
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    this.run("send-keys", "-t", "tui", "-l", text);
  }

  /** Types text and waits until the input box shows it. */
  async typed(text: string): Promise<void> {
    this.type(text);
    await this.until(
      `"${text}" in the input box`,
      (s) => s.includes(`> ${text}`),
    );
  }

  /** Sends key names (Enter, Tab, C-c). */
  keys(...names: string[]): void {
    this.run("send-keys", "-t", "tui", ...names);
  }

  /** Waits until the screen satisfies `check`; fails with the last screen. */
  async until(
    what: string,
    check: (screen: string) => boolean,
    ms = 60_000,
  ): Promise<string> {
    const end = Date.now() + ms;
    let last = "";
    while (Date.now() < end) {
      last = this.screen();
      if (check(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`timed out waiting for ${what}; the screen was:\n${last}`);
  }

  kill(): void {
    try {
      this.run("kill-server");
    } catch {
      // already gone
    }
  }
}

/**
 * The screen with what varies between runs masked; `align` keeps the
 * temporary directory's length (the README's screenshots), else it
 * becomes `<DIR>` and a box's padding after it one space (the goldens, the
 * same on every machine).
 */
function masked(screen: string, dir: string, align = false): string {
  return screen
    .replaceAll(
      dir,
      align ? "/tmp/project".padEnd(dir.length, " ") : "<DIR>",
    )
    .replace(/\b01[0-9A-HJKMNP-TV-Z]{24}\b/g, "<SESSION>")
    .replace(/\b01[0-9A-HJKMNP-TV-Z]{0,23}…/g, "<SESSION>…")
    .split("\n").map((l) => {
      const line = l.trimEnd();
      // The directory's length varies (its random part, TMPDIR), and with
      // it the padding before a box's right edge on a line that names it.
      return !align && line.includes("<DIR>")
        ? line.replace(/ {2,}│$/, " │")
        : line;
    }).join("\n").replace(/\n+$/, "\n");
}

async function golden(
  name: string,
  raw: string,
  dir: string,
  edit: (s: string) => string = (s) => s,
): Promise<void> {
  const file = join(REPO, "tests", "golden", name);
  const screen = edit(masked(raw, dir));
  if (UPDATE) {
    await Deno.mkdir(join(REPO, "tests", "golden"), { recursive: true });
    await Deno.writeTextFile(file, screen);
    await Deno.mkdir(join(REPO, "docs", "screens"), { recursive: true });
    await Deno.writeTextFile(
      join(REPO, "docs", "screens", name),
      edit(masked(raw, dir, true)),
    );
    return;
  }
  let want: string;
  try {
    want = await Deno.readTextFile(file);
  } catch {
    assert.fail(
      `${file} is missing: run UPDATE_GOLDEN=1 deno test -A tests/tui_test.ts`,
    );
  }
  assert.equal(screen, want, `${name} differs from the golden screen`);
}

Deno.test({
  name:
    "the terminal UI streams an answer, approves a plan in its dialog, completes, runs commands, interrupts, resizes, exits, backfills the session when started again, and after a crash is restarted re-attached to it, and with --plan shows plan mode and offers to carry each plan out",
  ignore: !TMUX,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-tui-" });
  const tmux = new Tmux(join(dir, "tmux.sock"));
  try {
    await Deno.writeTextFile(join(dir, "agent.hcl"), AGENT_HCL);
    await Deno.writeTextFile(
      join(dir, "script.json"),
      JSON.stringify(SCRIPT, null, 2),
    );
    await Deno.copyFile(
      join(REPO, "examples", "quickstart", "notes.md"),
      join(dir, "notes.md"),
    );
    const command = [
      "env",
      "-u",
      "NO_COLOR",
      "TERM=xterm-256color",
      Deno.execPath(),
      "run",
      "-A",
      join(REPO, "main.ts"),
    ].map((a) => `'${a}'`).join(" ");
    tmux.run(
      "new-session",
      "-d",
      "-s",
      "tui",
      "-x",
      "80",
      "-y",
      "24",
      "-c",
      dir,
      `${command}; echo "EXIT $?"; sleep 600`,
    );
    await tmux.until("the input box", (s) => s.includes("type a prompt"));

    // A prompt; the streamed answer, the read, and the plan dialog.
    await tmux.typed("Summarize notes.md");
    tmux.keys("Enter");
    const dialog = await tmux.until(
      "the plan dialog",
      (s) => s.includes("Approve fs.write_file?") && s.includes("y once"),
    );
    assert.match(dialog, /Now I'll write the summary\./);
    assert.match(dialog, /\+# Summary of the 12 March sync/);
    await golden("tui-80x24.txt", dialog, dir);
    // The diff scrolls.
    tmux.keys("Down");
    await tmux.until("the scrolled diff", (s) => /\(2–/.test(s));

    tmux.type("y");
    const done = await tmux.until(
      "the final answer",
      // (The status line follows the session's state a moment later.)
      (s) =>
        s.includes("action items.") && s.includes("type a prompt") &&
        /turns 3\/10/.test(s),
    );
    assert.match(
      done,
      /Done: SUMMARY\.md has the summary and 2 action items\./,
    );
    assert.match(done, /│ cat SUMMARY\.md # to read it/);
    assert.match(done, /turns 3\/10/);
    assert.match(
      await Deno.readTextFile(join(dir, "SUMMARY.md")),
      /Ana: write the migration guide/,
    );
    assert.deepEqual(
      JSON.parse(
        await Deno.readTextFile(join(dir, ".agent", "tui_history.json")),
      ),
      ["Summarize notes.md"],
    );
    // Colours on a terminal (NO_COLOR unset): the status line is reversed.
    assert.ok(tmux.screen(true).includes("\x1b[7m"));

    // `@path` completion, then `/` completion of the profile's commands.
    await tmux.typed("@no");
    await tmux.until(
      "the path candidates",
      (s) => s.includes("@notes.md  (Tab)"),
    );
    tmux.keys("Tab");
    await tmux.until("the completed path", (s) => s.includes("> @notes.md "));
    tmux.keys("C-u");
    await tmux.typed("/cos");
    tmux.keys("Tab");
    await tmux.until("the completed command", (s) => s.includes("> /cost "));
    tmux.keys("Enter");
    await tmux.until("/cost's answer", (s) => /over 3 model calls/.test(s));
    await tmux.typed("/help");
    tmux.keys("Enter");
    await tmux.until(
      "/help's answer",
      (s) => /\/context/.test(s) && s.includes("/export"),
    );

    // Ctrl-C mid-turn interrupts it; the session stays.
    await tmux.typed("Tell me more");
    tmux.keys("Enter");
    await tmux.until("the slow answer", (s) => s.includes("● This answer"));
    tmux.keys("C-c");
    await tmux.until("the interruption", (s) => s.includes("interrupted"));

    // Resize: the layout follows.
    tmux.run("resize-window", "-t", "tui", "-x", "120", "-y", "40");
    const big = await tmux.until(
      "the 120-column layout",
      (s) => s.split("\n").some((l) => l.startsWith("╭") && l.length === 120),
    );
    await tmux.until("the idle input box", (s) => s.includes("type a prompt"));
    await golden(
      "tui-120x40.txt",
      tmux.screen(),
      dir,
      (s) => s.replace(/● This answer[^\n]*/, "● This answer <interrupted>"),
    );
    assert.ok(big.includes("Tell me more"));

    // A key ends the Ctrl-C streak; then Ctrl-C asks, and a second one
    // within 2 s exits, and agent ends with 0.
    await tmux.typed("x");
    tmux.keys("C-c");
    await tmux.until("the hint", (s) => s.includes("input cleared"));
    tmux.keys("C-c");
    await tmux.until("agent's exit", (s) => s.includes("EXIT 0"));

    // A TUI started again on the stored session backfills its transcript
    // (ResumeSession, then RenderEvents from the start). This one crashes
    // once it has drawn it (a test-only switch): the session goes on
    // headless and agent restarts the TUI attached to it, which backfills.
    const id = /\b(01[0-9A-HJKMNP-TV-Z]{24})\b/.exec(big)?.[1];
    assert.ok(id, `no session id on the status line:\n${big}`);
    tmux.run(
      "respawn-pane",
      "-k",
      "-t",
      "tui",
      "-c",
      dir,
      `AGENT_TEST_TUI_CRASH=1 ${command} --resume ${id}; echo "EXIT $?"; sleep 600`,
    );
    const resumed = await tmux.until(
      "the restarted TUI's backfilled transcript",
      (s) =>
        s.includes("type a prompt") && s.includes("Tell me more") &&
        s.includes("/cost") && s.includes(id) &&
        s.includes("exit code 70); the session went on headless"),
    );
    assert.match(resumed, /Done: SUMMARY\.md has the summary and 2 action/);
    await tmux.typed("/exit");
    tmux.keys("Enter");
    await tmux.until("the resumed agent's exit", (s) => s.includes("EXIT 0"));

    // `agent --plan`: the session is created in plan mode (the status line
    // says so); each plan-mode answer ends with "carry out this plan?":
    // n keeps planning, y turns plan mode off and the same session
    // carries the plan out with every tool.
    const planDir = join(dir, "plan");
    await Deno.mkdir(planDir);
    await Deno.writeTextFile(join(planDir, "agent.hcl"), PLAN_AGENT_HCL);
    await Deno.writeTextFile(
      join(planDir, "script.json"),
      JSON.stringify(PLAN_SCRIPT, null, 2),
    );
    tmux.run(
      "respawn-pane",
      "-k",
      "-t",
      "tui",
      "-c",
      planDir,
      `${command} --plan; echo "EXIT $?"; sleep 600`,
    );
    await tmux.until(
      "the plan-mode status line",
      (s) => s.includes("type a prompt") && s.includes("PLAN MODE ·"),
    );
    await tmux.typed("Plan the release note");
    tmux.keys("Enter");
    const offer = await tmux.until(
      "the carry-out dialog",
      (s) => s.includes("Carry out this plan?") && s.includes("keep planning"),
    );
    assert.match(
      offer,
      /Plan: write NOTE\.md saying that release 0\.4 slips\./,
    );
    tmux.type("n");
    await tmux.until(
      "the kept plan mode",
      (s) =>
        s.includes("Plan mode stays on") && s.includes("type a prompt") &&
        s.includes("PLAN MODE ·"),
    );
    await tmux.typed("Name the week");
    tmux.keys("Enter");
    await tmux.until(
      "the second carry-out dialog",
      (s) => s.includes("Carry out this plan?") && s.includes("one week."),
    );
    tmux.type("y");
    const carried = await tmux.until(
      "the carried-out plan",
      (s) =>
        s.includes("NOTE.md is written.") && s.includes("type a prompt") &&
        !s.includes("PLAN MODE"),
    );
    assert.match(carried, /The plan is approved and plan mode is off/);
    assert.equal(
      await Deno.readTextFile(join(planDir, "NOTE.md")),
      "Release 0.4 slips one week.\n",
    );
    tmux.keys("C-c");
    tmux.keys("C-c");
    await tmux.until("the plan-mode agent's exit", (s) => s.includes("EXIT 0"));
  } finally {
    tmux.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
