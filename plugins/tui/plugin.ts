/**
 * `builtin/tui`'s plugin half, loaded by its entry module (`main.ts`) once
 * the first screen is painted: the `FrontendService` it serves
 * (Configure checks that it has a terminal and starts the UI) and the
 * settings it takes from its config. Ink and React (production build) load
 * once the kernel has the plugin healthy and its broker open: the kernel
 * starts this plugin beside its other providers and configures it once they
 * run, so their import overlaps the kernel's own start. When the operator
 * exits, it detaches and the process ends.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, GrpcStatusError, serve, service } from "../sdk/mod.ts";
import { Category } from "../../proto/gen/pluggableharness/common/v1/types_pb.ts";
import { FrontendService } from "../../proto/gen/pluggableharness/frontend/v1/service_pb.ts";
import type { TuiSettings } from "./app.ts";
import type { TerminalKeys } from "./first_frame.ts";
import manifest from "./plugin.json" with { type: "json" };

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

/** What the entry module found and opened. */
export interface StartOptions {
  /** Colours are drawn. */
  readonly color: boolean;
  /**
   * The terminal's keys (the entry module opened the terminal, and painted
   * the first screen when the window was large enough); absent when stdin
   * and stderr are not both a terminal.
   */
  readonly keys?: TerminalKeys;
}

let started = false;

/**
 * Serves the plugin: its handshake, then Configure starts the UI.
 *
 * @param options What the entry module found and painted.
 * @returns Resolves once the plugin serves (the process then runs until
 * the UI exits or the kernel shuts it down).
 */
export async function startPlugin(options: StartOptions): Promise<void> {
  const { color, keys } = options;
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
          if (!keys) {
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
                m.runTui(kernel, settings, keys)
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
  if (keys) {
    server.context.hostConnected.then(loadApp); // else at Configure
  }
}
