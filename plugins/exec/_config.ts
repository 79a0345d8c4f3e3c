/**
 * The exec provider block: its checked form ({@linkcode Config}) and the
 * checks Configure runs on it.
 *
 * @module
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { resolve } from "node:path";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";

/** The largest `max_timeout_s` a provider block may set. */
export const TIMEOUT_CEILING_S = 3600;
/** The provider block, checked. */
export interface Config {
  /** Real paths of the roots. */
  roots: string[];
  /** The command's variables besides PATH. */
  env: Record<string, string>;
  /** `default_timeout_s`. */
  defaultTimeoutS: number;
  /** `max_timeout_s`. */
  maxTimeoutS: number;
  /** `max_output_bytes`. */
  maxOutputBytes: number;
}
function positive(
  cfg: JsonObject,
  key: string,
  fallback: number,
  max: number,
): number {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > max) {
    throw new GrpcStatusError(
      Code.INVALID_ARGUMENT,
      `config attribute "${key}" must be a number above 0 and at most ${max}, got ${
        JSON.stringify(v)
      }`,
    );
  }
  return v;
}

/**
 * Checks a provider block: `roots` (real directories), `env`, the timeouts
 * and `max_output_bytes`.
 *
 * @param raw The block's attributes as Configure received them.
 * @returns The checked config.
 * @throws {GrpcStatusError} `INVALID_ARGUMENT` naming the attribute.
 */
export async function parseConfig(
  raw: JsonObject | undefined,
): Promise<Config> {
  const bad = (message: string): never => {
    throw new GrpcStatusError(Code.INVALID_ARGUMENT, message);
  };
  const cfg = raw ?? {};
  const known = [
    "roots",
    "env",
    "default_timeout_s",
    "max_timeout_s",
    "max_output_bytes",
  ];
  for (const key of Object.keys(cfg)) {
    if (!known.includes(key)) {
      bad(
        `config attribute "${key}" is not supported by exec (it takes ${
          known.map((k) => `"${k}"`).join(", ")
        })`,
      );
    }
  }
  const list = cfg.roots;
  if (list === undefined || list === null) {
    bad(
      `config attribute "roots" is required: the directories commands may run in`,
    );
  }
  if (
    !Array.isArray(list) || list.length === 0 ||
    list.some((r) => typeof r !== "string" || r === "")
  ) {
    bad(
      `config attribute "roots" must be a non-empty list of non-empty strings`,
    );
  }
  const roots: string[] = [];
  for (const root of list as string[]) {
    const abs = resolve(Deno.cwd(), root);
    try {
      const real = await Deno.realPath(abs);
      if (!(await Deno.stat(real)).isDirectory) {
        bad(`root "${root}" is not a directory`);
      }
      roots.push(real);
    } catch (err) {
      if (err instanceof GrpcStatusError) throw err;
      if (err instanceof Deno.errors.NotFound) {
        bad(`root "${root}" does not exist`);
      }
      bad(
        `root "${root}" cannot be read by the plugin (it may read what the provider block grants with allow_read): ${
          (err as Error).message
        }`,
      );
    }
  }
  const env: Record<string, string> = {};
  const e = cfg.env ?? {};
  if (typeof e !== "object" || e === null || Array.isArray(e)) {
    bad(`config attribute "env" must be a map of strings`);
  }
  for (const [k, v] of Object.entries(e as JsonObject)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) {
      bad(
        `config attribute "env" has an invalid variable name ${
          JSON.stringify(k)
        }`,
      );
    }
    if (typeof v !== "string") {
      bad(
        `config attribute "env" must map names to strings; "${k}" is not a string`,
      );
    }
    env[k] = v as string;
  }
  const maxTimeoutS = positive(cfg, "max_timeout_s", 600, TIMEOUT_CEILING_S);
  const defaultTimeoutS = positive(cfg, "default_timeout_s", 120, maxTimeoutS);
  const maxOutputBytes = Math.floor(
    positive(cfg, "max_output_bytes", 30000, 16 * 1024 * 1024),
  );
  return { roots, env, defaultTimeoutS, maxTimeoutS, maxOutputBytes };
}
