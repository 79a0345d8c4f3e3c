import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ToolSchemaSchema } from "../proto/gen/pluggableharness/tool/v1/types_pb.ts";
import type { Plan } from "../config/mod.ts";
import { FakeTool } from "./agent/_testing.ts";
import { slashRoutesOf } from "./_slash_routes.ts";
import { ProviderError } from "./api.ts";

function provider(name: string, ...commands: string[]) {
  return {
    endpoint: new FakeTool(name, []),
    commands: commands.map((c) => create(ToolSchemaSchema, { name: c })),
  };
}

function plan(slashCommands: string[]): Plan {
  return { profiles: [{ name: "default", slashCommands }] } as unknown as Plan;
}

Deno.test("slashRoutesOf routes each listed direct-invoke command of a profile to its provider; plain names are prompt expansions", () => {
  const providers = new Map([
    ["a", provider("a", "help", "cost")],
    ["b", provider("b", "deploy")],
  ]);
  const routes = slashRoutesOf(
    plan(["a.*", "b.deploy", "summarize"]),
    providers,
  )
    .get("default")!;
  assert.deepEqual([...routes.keys()], ["help", "cost", "deploy"]);
  assert.equal(routes.get("deploy")!.provider, "b");
});

Deno.test("slashRoutesOf refuses at load a command name offered by two providers, naming both, and a listed command the provider lacks", () => {
  const providers = new Map([
    ["a", provider("a", "help")],
    ["b", provider("b", "help")],
  ]);
  assert.throws(
    () => slashRoutesOf(plan(["a.*", "b.*"]), providers),
    (e: unknown) =>
      e instanceof ProviderError &&
      /"\/help".*both provider "a" and provider "b"/.test(e.message),
  );
  assert.throws(
    () => slashRoutesOf(plan(["a.nope"]), providers),
    (e: unknown) =>
      e instanceof ProviderError && /"a\.nope".*offers "help"/.test(e.message),
  );
});
