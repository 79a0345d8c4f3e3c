/**
 * The team wiki of the everyday example: serves `wiki/*.html` on
 * 127.0.0.1, so that the session's `web_fetch` has a page to read.
 *
 *     deno run --allow-net=127.0.0.1:8642 --allow-read=examples/everyday/wiki examples/everyday/serve_wiki.ts
 *
 * `GET /rounding` answers `wiki/rounding.html`; any other path is a 404.
 *
 * @module
 */

/** The port `script.json` fetches from. */
export const WIKI_PORT = 8642;

/** Options of {@linkcode serveWiki}. */
export interface ServeWikiOptions {
  /** The port; 0 picks a free one. @default {WIKI_PORT} */
  readonly port?: number;
  /** Called once the server listens, with its port. */
  readonly onListen?: (port: number) => void;
}

/**
 * Serves the wiki pages on 127.0.0.1.
 *
 * @param options The port and a listen callback.
 * @returns The server; shut it down when done.
 */
export function serveWiki(
  options: ServeWikiOptions = {},
): Deno.HttpServer<Deno.NetAddr> {
  const dir = new URL("./wiki/", import.meta.url);
  return Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? WIKI_PORT,
    onListen: ({ port }) => options.onListen?.(port),
  }, async (request) => {
    const name = new URL(request.url).pathname.slice(1);
    if (request.method !== "GET" || !/^[a-z-]+$/.test(name)) {
      return new Response("not found\n", { status: 404 });
    }
    try {
      const html = await Deno.readTextFile(new URL(`${name}.html`, dir));
      return new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        return new Response("not found\n", { status: 404 });
      }
      throw e;
    }
  });
}

if (import.meta.main) {
  serveWiki({
    onListen: (port) =>
      console.log(`wiki on http://127.0.0.1:${port}/rounding`),
  });
}
