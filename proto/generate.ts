/**
 * Regenerates the TypeScript code in `proto/gen/` from the `.proto` files
 * with the buf CLI and `protoc-gen-es`, both taken from npm and run by the
 * current Deno.
 *
 * Usage: `deno task proto` (writes `proto/gen/`), or
 * `deno run -A proto/generate.ts --out <dir>` to write elsewhere (the
 * freshness test does this and compares the trees).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PROTO_DIR = dirname(fileURLToPath(import.meta.url));

/** Runs buf generate into `outDir` and returns its exit code. */
export async function generate(outDir: string): Promise<number> {
  const deno = Deno.execPath();
  const template = {
    version: "v2",
    plugins: [{
      local: [deno, "run", "--quiet", "-A", "npm:@bufbuild/protoc-gen-es@2.17.0"],
      out: resolve(outDir),
      opt: ["target=ts", "import_extension=ts"],
    }],
    clean: true,
  };
  const cmd = new Deno.Command(deno, {
    args: [
      "run",
      "--quiet",
      "-A",
      "npm:@bufbuild/buf@1.75.0/buf",
      "generate",
      "--template",
      JSON.stringify(template),
    ],
    cwd: PROTO_DIR,
    env: { PATH: `${dirname(deno)}:${Deno.env.get("PATH") ?? ""}` },
  });
  const { code } = await cmd.spawn().status;
  return code;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string", default: join(PROTO_DIR, "gen") } },
  });
  Deno.exit(await generate(values.out!));
}
