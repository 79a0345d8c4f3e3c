/**
 * Builds the tests' slow fixtures ahead of the tests: the Go go-plugin
 * binaries (tests/_go_fixtures.ts; ~80 s of CPU from an empty Go cache) and
 * the PostgreSQL template cluster (tests/_postgres.ts). `.ci/run` starts it
 * in the background while it fetches the project's dependencies, so that
 * the build overlaps the downloads instead of a test file waiting for it.
 * Both builds are cached under `$XDG_CACHE_HOME` behind a file lock: a test
 * that needs one meanwhile waits for this build, and a test run without
 * this script builds them itself. What cannot be built here is reported
 * and left to the tests (which skip, or fail under CI, with the reason).
 *
 * Usage: `deno run -A tests/_ci_fixtures.ts`
 *
 * @module
 */

/** One fixture build with its label; never rejects. */
async function step(label: string, build: () => Promise<unknown>) {
  const t0 = performance.now();
  try {
    await build();
    console.log(
      `ci fixtures: ${label} ready in ${
        ((performance.now() - t0) / 1000).toFixed(1)
      } s`,
    );
    return true;
  } catch (error) {
    console.log(
      `ci fixtures: ${label} not built (the tests will try again): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
    return false;
  }
}

if (import.meta.main) {
  const ok = await Promise.all([
    step("Go fixtures", async () => {
      const go = await import("./_go_fixtures.ts");
      if (go.SKIP) throw new Error(go.SKIP);
      await go.build();
    }),
    step("PostgreSQL template", async () => {
      const pg = await import("./_postgres.ts");
      await pg.prepareTemplate();
    }),
  ]);
  Deno.exit(ok.every(Boolean) ? 0 : 1);
}
