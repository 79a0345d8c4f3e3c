/**
 * Differential test over the compiler's fixtures: every HCL file under
 * `config/testdata/compile/` (agent.hcl, lock files, global configs) goes
 * through our parser and `npm:@cdktf/hcl2json` (hashicorp/hcl v2, the
 * authority on HCL syntax). Both must agree on validity, and, when both
 * accept, on the decoded structure. The examples/ files too.
 *
 * hcl2json loads its WASM when this module is imported; the compiler itself
 * never does.
 */
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { join, relative } from "node:path";
import { parse as hcl2json } from "@cdktf/hcl2json";
import { parseHcl } from "./hcl/mod.ts";
import { toHcl2JsonShape, Unconvertible } from "./hcl/_hcl2json_shape.ts";
import { COMPILE_FIXTURES } from "./_compile_testing.ts";

function* hclFiles(dir: string): Generator<string> {
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* hclFiles(path);
    else if (e.name.endsWith(".hcl") || e.name === "relock") yield path;
  }
}

async function verdict(
  file: string,
  text: string,
): Promise<"ok" | "syntax" | "convert"> {
  try {
    await hcl2json(file, text);
    return "ok";
  } catch (e) {
    return String(e).includes("parse config:") ? "syntax" : "convert";
  }
}

const EXAMPLES = new URL("../examples/", import.meta.url).pathname;

Deno.test("differential: our parser and hcl2json agree on every compile fixture and example", async (t) => {
  const files = [...hclFiles(COMPILE_FIXTURES), ...hclFiles(EXAMPLES)].sort();
  assert.ok(files.length > 30, `${files.length} files`);
  let syntaxErrors = 0;
  for (const path of files) {
    const name = relative(COMPILE_FIXTURES, path);
    await t.step(name, async () => {
      const text = await Deno.readTextFile(path);
      const ours = parseHcl(text, name);
      const theirs = await verdict(name, text);
      const weAccept = ours.diagnostics.length === 0;
      if (!weAccept) syntaxErrors++;
      assert.equal(
        weAccept,
        theirs !== "syntax",
        `hcl2json: ${theirs}; ours: ${ours.diagnostics[0]?.summary}`,
      );
      if (!weAccept || theirs !== "ok") return;
      let shape: unknown;
      try {
        shape = toHcl2JsonShape(ours.body, text);
      } catch (e) {
        if (e instanceof Unconvertible) return;
        throw e;
      }
      const expected = await hcl2json(name, text);
      assert.ok(
        isDeepStrictEqual(
          JSON.parse(JSON.stringify(shape)),
          JSON.parse(JSON.stringify(expected)),
        ),
        "structures differ",
      );
    });
  }
  assert.ok(syntaxErrors >= 2, "the syntax fixtures are among them");
});
