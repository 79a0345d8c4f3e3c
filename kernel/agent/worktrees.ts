/**
 * Worktree sessions: a sub-agent that works in its own `git worktree` on a
 * new branch, and the merge of that branch back into its parent's tree.
 *
 * - {@linkcode addWorktree} checks out `agent/<name>` (from the parent's
 *   `HEAD`) under `<dir>/.agent/worktrees/<name>`, and keeps
 *   `.agent/worktrees/` out of the parent's `git status` (the repository's
 *   `info/exclude`).
 * - {@linkcode mergeWorktree} commits what the worker left uncommitted,
 *   asks `git merge-tree` whether the branch merges cleanly into the
 *   parent's `HEAD` — without touching either tree — and only then merges
 *   (a squash commit by default, or a merge commit). A conflict is
 *   reported with the conflicting paths and nothing changes; a merge is
 *   never forced. After a merge the worktree is removed; the branch stays.
 *
 * Git runs as the kernel's own child process (plugins never get git or the
 * repository's write grant for this).
 *
 * @module
 */
import { join } from "node:path";
import { Code, GrpcStatusError } from "../../proto/grpc_status.ts";

/** A worktree checked out for a child. */
export interface Worktree {
  /** Its absolute path. */
  readonly path: string;
  /** Its branch, `agent/<name>`. */
  readonly branch: string;
  /** The parent's working directory (where the merge goes). */
  readonly parentDir: string;
}

/** What a merge did. */
export interface WorktreeMerge {
  /** True when merged; false when the branch conflicts (nothing changed). */
  readonly merged: boolean;
  /** The parent's new commit. */
  readonly commit: string;
  /** `git diff --stat` of the merge. */
  readonly diffstat: string;
  /** The conflicting paths (not merged). */
  readonly conflicts: readonly string[];
}

interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function git(dir: string, args: string[]): Promise<GitResult> {
  let out;
  try {
    out = await new Deno.Command("git", {
      args: ["-C", dir, ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    }).output();
  } catch (err) {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `cannot run git for a worktree session: ${
        err instanceof Error ? err.message : String(err)
      }`,
    );
  }
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

/** Runs git and returns its trimmed stdout, or fails with its stderr. */
async function gitOk(dir: string, args: string[], what: string) {
  const r = await git(dir, args);
  if (r.code !== 0) {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `${what} failed in ${dir}: git ${args.join(" ")}: ${
        (r.stderr || r.stdout).trim()
      }`,
    );
  }
  return r.stdout.trim();
}

/**
 * `-c user.name/-c user.email` when the repository has no identity, so
 * that the kernel's commits work on a fresh machine; the operator's own
 * identity is used when set.
 */
async function identity(dir: string): Promise<string[]> {
  const email = await git(dir, ["config", "user.email"]);
  const name = await git(dir, ["config", "user.name"]);
  return [
    ...(name.code === 0 ? [] : ["-c", "user.name=agent"]),
    ...(email.code === 0 ? [] : ["-c", "user.email=agent@localhost"]),
  ];
}

/**
 * Checks out a new branch `agent/<name>` from `HEAD` of the repository at
 * `dir`, under `dir/.agent/worktrees/<name>`.
 *
 * @param dir The parent's working directory (inside a git work tree).
 * @param name The child's name (`[a-z][a-z0-9_-]*`).
 * @returns The worktree.
 * @throws {GrpcStatusError} `FAILED_PRECONDITION` when `dir` is not in a
 * git work tree, has no commit, or the worktree or branch already exists.
 */
export async function addWorktree(
  dir: string,
  name: string,
): Promise<Worktree> {
  const inside = await git(dir, ["rev-parse", "--is-inside-work-tree"]);
  if (inside.code !== 0 || inside.stdout.trim() !== "true") {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `cannot give sub-agent "${name}" a worktree: ${dir} is not inside a git work tree`,
    );
  }
  await gitOk(dir, ["rev-parse", "--verify", "HEAD"], "finding HEAD");
  const path = join(dir, ".agent", "worktrees", name);
  const branch = `agent/${name}`;
  try {
    await Deno.lstat(path);
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `cannot give sub-agent "${name}" a worktree: ${path} already exists (merge or remove it first)`,
    );
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  // Keep the worktrees out of the parent's `git status`.
  const exclude = await gitOk(
    dir,
    ["rev-parse", "--git-path", "info/exclude"],
    "finding info/exclude",
  );
  const excludePath = exclude.startsWith("/") ? exclude : join(dir, exclude);
  const current = await Deno.readTextFile(excludePath).catch(() => "");
  if (!current.split("\n").includes(".agent/worktrees/")) {
    await Deno.mkdir(join(excludePath, ".."), { recursive: true });
    await Deno.writeTextFile(
      excludePath,
      `${current && !current.endsWith("\n") ? "\n" : ""}.agent/worktrees/\n`,
      { append: true },
    );
  }
  await gitOk(
    dir,
    ["worktree", "add", "--quiet", "-b", branch, path, "HEAD"],
    `creating the worktree of sub-agent "${name}"`,
  );
  return { path, branch, parentDir: dir };
}

/**
 * Merges a worktree's branch into its parent's `HEAD`: commits what the
 * worker left uncommitted, refuses (nothing changed) when the branch
 * conflicts, else squashes (or merges) and removes the worktree.
 *
 * @param wt The worktree.
 * @param name The child's name (in commit messages).
 * @param report The worker's final report (the commit message body).
 * @param kind `squash` (default) or `merge`.
 * @returns What happened.
 * @throws {GrpcStatusError} `FAILED_PRECONDITION` when the branch has no
 * change, the parent has staged changes, or git refuses (local changes
 * that the merge would overwrite).
 */
export async function mergeWorktree(
  wt: Worktree,
  name: string,
  report: string,
  kind: "squash" | "merge",
): Promise<WorktreeMerge> {
  const id = await identity(wt.parentDir);
  const subject = `${name}: ${
    report.split("\n").find((l) => l.trim())?.trim().slice(0, 72) ??
      "work of the sub-agent"
  }`;
  const message = `${subject}\n\n${report.trim()}\n`;
  const dirty = await gitOk(wt.path, ["status", "--porcelain"], "git status");
  if (dirty !== "") {
    await gitOk(wt.path, ["add", "-A"], "staging the worker's changes");
    await gitOk(
      wt.path,
      [...id, "commit", "--quiet", "--no-verify", "-m", message],
      "committing the worker's changes",
    );
  }
  const ahead = await gitOk(
    wt.parentDir,
    ["rev-list", "--count", `HEAD..${wt.branch}`],
    "comparing the branch",
  );
  if (ahead === "0") {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `branch ${wt.branch} of sub-agent "${name}" has no change to merge`,
    );
  }
  const probe = await git(wt.parentDir, [
    "merge-tree",
    "--write-tree",
    "--name-only",
    "--no-messages",
    "HEAD",
    wt.branch,
  ]);
  if (probe.code === 1) {
    const [, ...paths] = probe.stdout.split("\n").filter((l) => l !== "");
    return {
      merged: false,
      commit: "",
      diffstat: "",
      conflicts: [...new Set(paths)],
    };
  }
  if (probe.code !== 0) {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `cannot merge ${wt.branch}: git merge-tree: ${probe.stderr.trim()}`,
    );
  }
  const staged = await git(wt.parentDir, ["diff", "--cached", "--quiet"]);
  if (staged.code !== 0) {
    throw new GrpcStatusError(
      Code.FAILED_PRECONDITION,
      `cannot merge ${wt.branch}: ${wt.parentDir} has staged changes (commit or unstage them first)`,
    );
  }
  if (kind === "squash") {
    await gitOk(
      wt.parentDir,
      ["merge", "--squash", "--quiet", wt.branch],
      `merging ${wt.branch}`,
    );
    await gitOk(
      wt.parentDir,
      [...id, "commit", "--quiet", "--no-verify", "-m", message],
      `committing the squash of ${wt.branch}`,
    );
  } else {
    await gitOk(
      wt.parentDir,
      [
        ...id,
        "merge",
        "--no-ff",
        "--quiet",
        "--no-verify",
        "-m",
        message,
        wt.branch,
      ],
      `merging ${wt.branch}`,
    );
  }
  const commit = await gitOk(wt.parentDir, ["rev-parse", "HEAD"], "rev-parse");
  const diffstat = await gitOk(
    wt.parentDir,
    ["diff", "--stat", "HEAD^1", "HEAD"],
    "diffstat",
  );
  await gitOk(
    wt.parentDir,
    ["worktree", "remove", "--force", wt.path],
    `removing the worktree of "${name}"`,
  );
  return { merged: true, commit, diffstat, conflicts: [] };
}
