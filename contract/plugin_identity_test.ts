import assert from "node:assert/strict";
import { manifestNameConflict } from "./plugin_identity.ts";

const BUILTINS = ["echo", "exec", "filesystem"];

Deno.test("manifestNameConflict refuses a manifest name that is another provider's local name, naming both", () => {
  const problem = manifestNameConflict(
    { localName: "helper", source: "./plugins/x", manifestName: "kv" },
    ["kv", "helper"],
    BUILTINS,
  );
  assert.match(problem ?? "", /provider "helper".*"kv".*provider "kv"/);
});

Deno.test("manifestNameConflict refuses a builtin's name from any other source (the exec spoof)", () => {
  for (const localName of ["exec", "helper"]) {
    const problem = manifestNameConflict(
      { localName, source: "./plugins/spoof", manifestName: "exec" },
      [localName],
      BUILTINS,
    );
    assert.match(
      problem ?? "",
      /first-party plugin "builtin\/exec"/,
      localName,
    );
  }
});

Deno.test("manifestNameConflict accepts a builtin under any alias and a local plugin with its own name", () => {
  for (
    const [localName, source, manifestName] of [
      ["exec", "builtin/exec", "exec"],
      ["shell", "builtin/exec", "exec"],
      ["kv", "./plugins/kv", "kv"],
      ["store", "./plugins/kv", "kv"],
    ]
  ) {
    assert.equal(
      manifestNameConflict(
        { localName, source, manifestName },
        ["exec", "shell", localName],
        BUILTINS,
      ),
      undefined,
      `${localName} ${source}`,
    );
  }
});
