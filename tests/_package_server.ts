/**
 * Serves the repository over HTTP on 127.0.0.1 the way a registry serves a
 * published package: modules with their bare specifiers rewritten to the
 * `npm:` ones of deno.json's import map, JSON files as JSON. Tests use it to
 * run the package (or a fixture inside it) from a remote URL.
 *
 * @module
 */
import { REPO } from "./_helpers.ts";

const imports: Record<string, string> =
  JSON.parse(await Deno.readTextFile(`${REPO}/deno.json`)).imports;

/**
 * Rewrites bare specifiers through the import map, as a registry publish
 * does.
 *
 * @param source A module's text.
 * @returns The text with every mapped bare specifier replaced.
 */
export function rewriteSpecifiers(source: string): string {
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

/** A running package server. */
export interface PackageServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  base: string;
  /** Every path requested so far, in order (decoded, with a leading `/`). */
  served: string[];
}

/**
 * Starts serving the repository on 127.0.0.1 (port 0). Dispose of the
 * result to stop it.
 *
 * @returns The server's base URL and the log of served paths.
 */
export function servePackage(): PackageServer {
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
      return new Response(rewriteSpecifiers(text), {
        headers: { "content-type": "application/typescript" },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    served,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
