/**
 * `builtin/tui`: the full-screen terminal UI, a frontend plugin
 * (`FrontendService`). Its manifest declares `"terminal": true`, so a
 * kernel running on a terminal starts it with that terminal as its stdin
 * and stderr (stdout carries the go-plugin handshake, as for every
 * plugin), in the terminal's foreground process group and inside the OS
 * sandbox with only its declared grants. It draws on stderr (its own
 * painter, `screen.ts`; Ink reads the keys).
 *
 * This entry module imports nothing but the first screen's painter: on a
 * terminal it paints the input box and starts the terminal's one key
 * reader (which keeps the keys typed until Ink takes them) before it
 * loads the plugin half (`plugin.ts`: the plugin SDK, then Ink
 * and React), whose load and the kernel's own start it would otherwise
 * wait for.
 *
 * @module
 */
import { openTerminal } from "./first_frame.ts";

function envOf(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted
  }
}

if (import.meta.main) {
  const hasTerminal = Deno.stdin.isTerminal() && Deno.stderr.isTerminal();
  const noColor = (envOf("NO_COLOR") ?? "") !== "";
  const color = hasTerminal && !noColor;
  // chalk (under Ink) decides its colour level when it is imported, from
  // FORCE_COLOR or else from whether fd 1 is a terminal, which is never the
  // case for a plugin (stdout carries the handshake): say it here.
  try {
    Deno.env.set(
      "FORCE_COLOR",
      !color ? "0" : envOf("COLORTERM") === "truecolor" ? "3" : "2",
    );
  } catch {
    // not granted: Ink then draws without colours
  }
  // React (and its reconciler, under Ink) picks its build from NODE_ENV
  // when it is first required: without it, the development build, whose
  // reconciler alone is 0.8 MB of source, with checks and warnings the
  // screen cannot show. The TUI always runs the production build.
  try {
    Deno.env.set("NODE_ENV", "production");
  } catch {
    // not granted: the development build, slower but the same screens
  }
  const keys = hasTerminal ? openTerminal(color) : undefined;
  const { startPlugin } = await import("./plugin.ts");
  await startPlugin({ color, ...(keys ? { keys } : {}) });
}
