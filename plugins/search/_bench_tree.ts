/**
 * The tree both `grep` benchmarks search (`search_bench.ts` here and
 * `tests/bench_grep.ts`): TypeScript files of 40 lines, 20 a directory in
 * `pkg<n>/mod<m>` folders, every 97th holding the line
 * `// TODO: needle here`.
 *
 * @module
 */

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];

/**
 * Writes the tree below `dir`.
 *
 * @param dir An existing directory.
 * @param files How many files (10,000 gives 500 directories, 104 needles).
 */
export function makeTree(dir: string, files: number): void {
  for (let i = 0, d = 0; i < files; d++) {
    const sub = `${dir}/pkg${d % 50}/mod${Math.floor(d / 50)}`;
    Deno.mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 20 && i < files; f++, i++) {
      const lines: string[] = [];
      for (let l = 0; l < 40; l++) {
        lines.push(
          `export const v${l} = "${WORDS[(i + l) % 7]} ${
            i * 31 + l
          }"; // line ${l}`,
        );
      }
      if (i % 97 === 0) lines.push("// TODO: needle here");
      Deno.writeTextFileSync(`${sub}/file${f}.ts`, `${lines.join("\n")}\n`);
    }
  }
}
