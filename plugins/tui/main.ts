/**
 * `builtin/tui`: the full-screen terminal UI, a frontend plugin
 * (`FrontendService`). Its manifest declares `"terminal": true`, so a
 * kernel running on a terminal starts it with that terminal as its stdin
 * and stderr (stdout carries the go-plugin handshake, as for every
 * plugin), in the terminal's foreground process group and inside the OS
 * sandbox with only its declared grants. Ink draws on stderr.
 *
 * Configure checks that it has a terminal and starts the UI. Ink and
 * React (production build) load once the kernel has the plugin healthy
 * and its broker open: the kernel starts this plugin beside its other
 * providers and configures it once they run, so their import overlaps
 * the kernel's own start. When the
 * operator exits, it detaches and the process ends.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, GrpcStatusError, serve, service } from "../sdk/mod.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { FrontendService } from "../../proto/gen/pluggableharness/frontend/v1/service_pb.ts";
import type { TuiSettings } from "./app.ts";
import manifest from "./plugin.json" with { type: "json" };

function envOf(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // not granted
  }
}

/**
 * The plugin's settings from its config, checked.
 *
 * @param config The decoded config.
 * @param color Whether colours are wanted.
 * @returns The settings.
 * @throws {GrpcStatusError} INVALID_ARGUMENT naming the attribute.
 */
export function settingsOf(
  config: JsonObject | undefined,
  color: boolean,
): TuiSettings {
  const str = (name: string): string => {
    const v = config?.[name];
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") {
      throw new GrpcStatusError(
        Code.INVALID_ARGUMENT,
        `config attribute "${name}" must be a string`,
      );
    }
    return v;
  };
  let profiles: TuiSettings["profiles"] = {};
  const raw = str("profiles_json");
  if (raw) {
    try {
      const v = JSON.parse(raw);
      if (typeof v !== "object" || v === null || Array.isArray(v)) {
        throw new Error("not an object");
      }
      profiles = v;
    } catch (err) {
      throw new GrpcStatusError(
        Code.INVALID_ARGUMENT,
        `config attribute "profiles_json" must be a JSON object by profile name: ${
          (err as Error).message
        }`,
      );
    }
  }
  const flag = (name: string): boolean => {
    const v = str(name);
    if (v !== "" && v !== "true" && v !== "false") {
      throw new GrpcStatusError(
        Code.INVALID_ARGUMENT,
        `config attribute "${name}" must be "true" or "false", not ${
          JSON.stringify(v)
        }`,
      );
    }
    return v === "true";
  };
  const crashAfterBackfill = flag("crash_after_backfill");
  const plan = flag("plan");
  return {
    profile: str("profile"),
    resume: str("resume"),
    attach: str("attach"),
    restarted: str("restarted"),
    crashAfterBackfill,
    plan,
    profiles,
    dir: Deno.cwd(),
    color,
  };
}

let started = false;

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
  // Ink and React are the cost: loaded once the kernel has checked our
  // health and opened the broker (so that the import, which blocks this
  // event loop for a while, cannot push the health check past the start
  // timeout), while the kernel still starts its other providers and then
  // configures us. Waiting for the callback channel instead left that
  // window idle: the kernel announces it late, and the import then
  // started at Configure, on the path to the prompt.
  let app: Promise<typeof import("./app.ts")> | undefined;
  const loadApp = () => {
    if (!app) {
      app = import("./app.ts");
      app.catch(() => {});
    }
    return app;
  };
  const server = await serve({
    identity: {
      name: manifest.name,
      version: manifest.version,
      category: "frontend",
    },
    services: (ctx) => [
      service(FrontendService, {
        getCapabilities: () => ({ capabilities: {} }),
        configure: (req) => {
          if (!hasTerminal) {
            throw new GrpcStatusError(
              Code.FAILED_PRECONDITION,
              "builtin/tui needs a terminal on its stdin and stderr: run agent in a terminal, or pass --no-tui for the line UI",
            );
          }
          const settings = settingsOf(req.config, color);
          if (!started) {
            started = true;
            setTimeout(() => {
              Promise.all([ctx.kernel(), loadApp()]).then(([kernel, m]) =>
                m.runTui(kernel, settings)
              ).then(
                () => Deno.exit(0),
                (err) => {
                  // The terminal first, then the reason, on the terminal.
                  Deno.stderr.writeSync(
                    new TextEncoder().encode(
                      `\x1b[?1049l\x1b[?25h\nagent: terminal UI failed: ${
                        err instanceof Error ? err.message : String(err)
                      }\n`,
                    ),
                  );
                  Deno.exit(1);
                },
              );
            }, 0);
          }
          return {};
        },
        describe: () => ({
          producer: {
            name: manifest.name,
            version: manifest.version,
            category: Category.FRONTEND,
          },
        }),
      }),
    ],
  });
  if (hasTerminal) {
    server.context.hostConnected.then(loadApp); // else at Configure
  }
}
