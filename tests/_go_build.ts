/**
 * The Go go-plugin fixtures for the interop tests and the benchmarks: the
 * build (tests/_go_fixtures.ts, which `.ci/run` starts ahead of the tests)
 * and the manifest of the Go tool plugin.
 *
 * @module
 */
import { parseManifest, type PluginManifest } from "../plugins/sdk/mod.ts";

export { build, type Built, PATH, REPO, SKIP } from "./_go_fixtures.ts";

/** The manifest of the Go tool plugin `gotool`. */
export function goManifest(): PluginManifest {
  return parseManifest({
    name: "gotool",
    version: "0.1.0",
    category: "tool",
    protocol_version: 1,
    runtime: "executable",
    entrypoint: "gotool",
    capabilities: {},
  }, "interop_go_test.ts (inline)");
}
