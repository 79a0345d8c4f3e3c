/**
 * First-party plugins must launch when the package itself runs from a
 * registry, where their modules are remote and the child runs with
 * `--cached-only`. This test serves the repository over HTTP on 127.0.0.1,
 * rewriting bare specifiers to `npm:` ones as a registry publish does, and
 * runs a kernel from that URL with no local config.
 */
import assert from "node:assert/strict";
import { PATH, REPO } from "./_helpers.ts";

const imports: Record<string, string> =
  JSON.parse(await Deno.readTextFile(`${REPO}/deno.json`)).imports;

/** Rewrites bare specifiers through the import map, as a registry publish does. */
function rewrite(source: string): string {
  return source.replace(
    /((?:from|import)\s*\(?\s*)"([^"]+)"/g,
    (all, head: string, spec: string) => {
      if (/^(\.|\/|[a-z]+:)/.test(spec)) return all;
      if (imports[spec]) return `${head}"${imports[spec]}"`;
      const prefix = Object.keys(imports).find((k) =>
        k.endsWith("/") && spec.startsWith(k)
      );
      if (prefix) {
        return `${head}"${imports[prefix]!.replace(/^npm:\//, "npm:")}${
          spec.slice(prefix.length)
        }"`;
      }
      return all;
    },
  );
}

Deno.test("a kernel loaded from a remote URL launches a builtin plugin with --cached-only", async () => {
  const served: string[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    served.push(path);
    try {
      const text = await Deno.readTextFile(`${REPO}${path}`);
      if (path.endsWith(".json")) {
        return new Response(text, {
          headers: { "content-type": "application/json" },
        });
      }
      return new Response(rewrite(text), {
        headers: { "content-type": "application/typescript" },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  const cwd = await Deno.makeTempDir({ prefix: "ph-agent-remote-" });
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-config",
        "--no-lock",
        `${base}/tests/fixtures/remote_kernel.ts`,
      ],
      cwd,
      env: { PATH, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(result.entrypoint, `${base}/plugins/echo/main.ts`);
    assert.deepEqual(result.results, [{ text: "from afar" }, {
      count: 2,
      exact: false,
    }]);
    // The plugin's own modules came from the remote origin, not the checkout.
    assert.ok(served.includes("/plugins/echo/main.ts"));
    assert.ok(served.includes("/plugins/sdk/serve.ts"));
    assert.ok(served.includes("/kernel/callback/_gateway_main.ts"));
  } finally {
    await server.shutdown();
    await Deno.remove(cwd, { recursive: true });
  }
});
