/**
 * A launched plugin's stdio: stderr is drained into a bounded tail (for
 * error messages) and relayed to the plugin's logger at the level each line
 * names; stdout after the handshake line is relayed at debug level; the
 * exit is reported once stderr is drained, so that the tail is complete.
 *
 * @module
 */
import { getLogger, type Logger } from "@logtape/logtape";
import type { LaunchedProcess } from "../process/launcher.ts";
import { drain, LineSplitter, TailBuffer } from "../process/_process_output.ts";
import { logAt } from "../telemetry/_log.ts";
import type { ExitInfo } from "./errors.ts";

/** Parses an hclog JSON line or a `[LEVEL]`-prefixed line into a level. */
function stderrLevel(line: string): {
  level: "trace" | "debug" | "info" | "warning" | "error";
  message: string;
  fields: Record<string, unknown>;
} {
  if (line.startsWith("{")) {
    try {
      const obj = JSON.parse(line) as Record<string, unknown>;
      if (typeof obj["@message"] === "string") {
        const lvl = String(obj["@level"] ?? "debug");
        const { "@level": _l, "@message": msg, "@timestamp": _t, ...fields } =
          obj;
        return {
          level: lvl === "warn"
            ? "warning"
            : (["trace", "debug", "info", "error"].includes(lvl)
              ? lvl as "trace"
              : "debug"),
          message: String(msg),
          fields,
        };
      }
    } catch {
      // not JSON: fall through
    }
  }
  const m = /^\[(TRACE|DEBUG|INFO|WARN|ERROR)\]\s*(.*)$/.exec(line);
  if (m) {
    const lvl = m[1]!.toLowerCase();
    return {
      level: lvl === "warn" ? "warning" : lvl as "trace",
      message: m[2]!,
      fields: {},
    };
  }
  if (/^(panic:|fatal error:)/.test(line)) {
    return { level: "error", message: line, fields: {} };
  }
  return { level: "debug", message: line, fields: {} };
}

/** What {@linkcode watchOutput} returns. */
export interface PluginOutput {
  /** The plugin's logger (`ph-agent.plugin.<name>`). */
  log: Logger;
  /** The last bytes of its stderr. */
  stderr: TailBuffer;
  /** Receives stdout after the handshake line. */
  stdout: LineSplitter;
  /** Resolves when the process has exited and its stderr is drained. */
  exited: Promise<ExitInfo>;
}

/**
 * Starts draining a plugin's stderr and prepares its stdout relay.
 *
 * @param child The plugin process.
 * @param name The plugin's name.
 * @returns The stderr tail, stdout relay, logger and exit.
 */
export function watchOutput(
  child: LaunchedProcess,
  name: string,
): PluginOutput {
  const pluginLog = getLogger(["ph-agent", "plugin", name]);
  const stderr = new TailBuffer();
  const lines = new LineSplitter(
    (line) => {
      const { level, message, fields } = stderrLevel(line);
      logAt(pluginLog, level, message, { ...fields, stream: "stderr" });
    },
    (count) =>
      pluginLog.warn(
        "Dropped {count} stderr lines of plugin {plugin} (rate limit)",
        {
          count,
          plugin: name,
        },
      ),
  );
  const stderrDone = drain(child.stderr, (chunk) => {
    stderr.push(chunk);
    lines.push(chunk);
  }).then(() => lines.end());
  const stdout = new LineSplitter(
    (line) => pluginLog.debug("{message}", { message: line, stream: "stdout" }),
    () => {},
  );
  const exited: Promise<ExitInfo> = child.status.then(async (s) => {
    await Promise.race([stderrDone, new Promise((r) => setTimeout(r, 100))]);
    return { code: s.code, signal: s.signal };
  });
  return { log: pluginLog, stderr, stdout, exited };
}
