/// <reference lib="dom" />
/**
 * The web UI (`builtin/webui`, the frontend named `web`) driven as a
 * person uses it, in headless Chromium (Debian `chromium`, through
 * `puppeteer-core`): the printed URL opens the session list; a live
 * session started from the library (openKernel) is opened, its plan is
 * approved from the page while the reference line frontend
 * (examples/frontend) is attached too, and the result shows in the page,
 * the line frontend and the library; the stored session then replays with
 * its hash-chain verification and exports as Markdown and JSON. Requests
 * without the token get 403; a killed web UI leaves the session running
 * and a restarted one serves it again. One browser serves every step.
 *
 * Screenshots of each page go to `tests/output/webui/` (or
 * `WEBUI_SCREENSHOTS_DIR`); with `UPDATE_GOLDEN=1` the session page is also
 * copied to `docs/screens/webui-session.png` for the README.
 *
 * Skipped only when `/usr/bin/chromium` is absent and `CI` is not set.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { openKernel } from "../kernel/kernel.ts";
import { BUILTINS } from "../plugins/builtin.ts";
import { PATH } from "./_helpers.ts";
import type { Turn } from "./_agent_project.ts";

const CHROMIUM = "/usr/bin/chromium";
const FRONTEND = fileURLToPath(
  new URL("../examples/frontend", import.meta.url),
);
const OUT = Deno.env.get("WEBUI_SCREENSHOTS_DIR") ??
  fileURLToPath(new URL("./output/webui", import.meta.url));
const README_SCREEN = fileURLToPath(
  new URL("../docs/screens/webui-session.png", import.meta.url),
);

function chromiumPresent(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const IGNORE = !chromiumPresent() && Deno.env.get("CI") !== "true";

const WRITE: Turn = {
  tool_calls: [{
    id: "toolu_w",
    name: "write_file",
    arguments: { path: "a.txt", content: "hi from the web\n" },
  }],
};

async function projectDir(root: string): Promise<string> {
  const dir = `${root}/project`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/agent.hcl`,
    `required_providers {
  scripted = { source = "builtin/scripted", version = "~> 0.1" }
  fs       = { source = "builtin/filesystem", version = "~> 0.1" }
  line     = { source = ${JSON.stringify(FRONTEND)}, version = "~> 0.1" }
}

provider "scripted" {
  script     = "./script.json"
  allow_read = ["."]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

provider "line" {
  input       = "./input.txt"
  output      = "./output.txt"
  allow_read  = ["."]
  allow_write = ["."]
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

policy "writes_ask" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

settings {
  log_level = "warn"
  telemetry = false
}

agent_profile "default" {
  model {
    primary {
      provider = "scripted"
      id       = "scripted"
    }
  }
  tools = ["fs.*"]
}
`,
  );
  await Deno.writeTextFile(
    `${dir}/script.json`,
    JSON.stringify({ turns: [WRITE, { text: "wrote it" }] }),
  );
  await Deno.writeTextFile(`${dir}/output.txt`, "");
  await Deno.writeTextFile(`${dir}/input.txt`, "attach\nwait 1\n");
  return dir;
}

async function shot(page: Page, name: string): Promise<string> {
  await Deno.mkdir(OUT, { recursive: true });
  const path = `${OUT}/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Waits until the page's text contains `text`. */
async function waitForText(page: Page, text: string): Promise<void> {
  await page.waitForFunction(
    (t: string) => document.body.innerText.includes(t),
    { timeout: 30_000 },
    text,
  );
}

Deno.test({
  name:
    "the web UI: token-guarded URL, session list, a live library session approved from the page while the line frontend is attached, replay with hash-chain verification, export",
  ignore: IGNORE,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const root = await Deno.realPath(
      await Deno.makeTempDir({ prefix: "ph-agent-webui-" }),
    );
    let browser: Browser | undefined;
    // Chromium starts while the kernel and its plugins do.
    const launching = puppeteer.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox"],
      pipe: true,
      headless: true,
      env: { ...Deno.env.toObject(), XDG_CONFIG_HOME: `${root}/xdg` },
    });
    launching.catch(() => {});
    try {
      const dir = await projectDir(root);
      await using kernel = await openKernel(dir, {
        builtins: BUILTINS,
        env: { PATH, HOME: root, XDG_STATE_HOME: `${root}/state` },
        sessionsDir: `${root}/sessions`,
      });
      const web = await kernel.startFrontend("web");
      assert.equal(web.name, "web");
      const url = web.notice?.match(/http:\/\/127\.0\.0\.1:\d+\/\?token=\w+/)
        ?.[0];
      assert.ok(url, `the notice carries the URL: ${web.notice}`);
      const base = new URL(url).origin;

      await t.step(
        "requests without the token, or with a wrong one, get 403",
        async () => {
          for (
            const u of [
              `${base}/`,
              `${base}/api/sessions`,
              `${base}/?token=wrong`,
            ]
          ) {
            const r = await fetch(u);
            await r.body?.cancel();
            assert.equal(r.status, 403, u);
          }
        },
      );

      // A live session from the library: its ask waits for a frontend.
      await using session = await kernel.session({
        profile: "default",
        onAsk: "callback",
      });
      const turn = session.send("write a.txt");
      // The reference line frontend attaches the running session too.
      const line = await kernel.startFrontend("line");

      browser = await launching;
      const page = await browser.newPage();
      await page.setViewport({ width: 1200, height: 800 });

      await t.step("the printed URL opens the session list", async () => {
        const r = await page.goto(url);
        assert.equal(r?.status(), 200);
        assert.equal(new URL(page.url()).search, "", "the token left the URL");
        await page.waitForSelector(
          `tr.session[data-id="${session.sessionId}"][data-status="running"]`,
        );
        await shot(page, "1-session-list");
      });

      await t.step("the list filters by status", async () => {
        await page.select("#f-status", "completed");
        await page.waitForFunction(() =>
          document.body.dataset.sessions === "0"
        );
        await page.select("#f-status", "all");
        await page.waitForFunction(() =>
          document.body.dataset.sessions === "1"
        );
      });

      await t.step(
        "the live session's plan is approved from the page; the page, the line frontend and the library see the result",
        async () => {
          await page.click(`tr.session[data-id="${session.sessionId}"] a`);
          await page.waitForSelector("#approvals .approval button.approve");
          const approval = await page.$eval(
            "#approvals .approval",
            (e) => (e as HTMLElement).innerText,
          );
          assert.match(approval, /fs\.write_file/);
          assert.match(approval, /hi from the web/, "the diff or input shows");
          await shot(page, "2-session-approval");
          await page.click("#approvals .approval button.approve");
          await waitForText(page, "wrote it");
          await page.waitForFunction(() =>
            document.body.dataset.pending === "0"
          );
          await shot(page, "3-session-done");
          const result = await turn.result;
          assert.equal(result.outcome, "done");
          assert.equal(result.finalText, "wrote it");
          assert.equal(
            await Deno.readTextFile(`${dir}/a.txt`),
            "hi from the web\n",
          );
          const exit = await line.exited;
          const out = await Deno.readTextFile(`${dir}/output.txt`);
          assert.equal(exit.crashed, false, out);
          assert.match(out, new RegExp(`^attached ${session.sessionId}$`, "m"));
          assert.match(out, /^plan: fs\.write_file ASK$/m);
          assert.match(out, /^assistant: wrote it$/m);
        },
      );

      await t.step(
        "a crashed web UI leaves the session running; a restarted one serves it again, backfilled",
        async () => {
          web.kill();
          const exit = await web.exited;
          assert.equal(exit.crashed, true);
          assert.equal(session.ended, false, "the session goes on");
          const again = await kernel.startFrontend("web");
          try {
            const url2 = again.notice?.match(/http:\/\/\S+/)?.[0];
            assert.ok(url2 && url2 !== url, "a new token and port");
            const r = await fetch(`${base}/api/sessions`).catch((e) => e);
            assert.ok(r instanceof Error, "the old server is gone");
            await page.goto(url2);
            await page.goto(`${new URL(url2).origin}/s/${session.sessionId}`);
            await waitForText(page, "wrote it");
            await page.waitForFunction(() =>
              document.body.dataset.status === "running"
            );
          } finally {
            await again.stop();
          }
        },
      );

      await session.close();
      const web2 = await kernel.startFrontend("web");
      const url3 = web2.notice!.match(/http:\/\/\S+/)![0];
      await page.goto(url3);

      await t.step(
        "the stored session replays with its hash-chain verification and exports as Markdown and JSON",
        async () => {
          await page.goto(`${new URL(url3).origin}/s/${session.sessionId}`);
          await page.waitForSelector("#verify.ok");
          const verify = await page.$eval(
            "#verify",
            (e) => (e as HTMLElement).innerText,
          );
          assert.match(
            verify,
            /^Hash chain: ok: \d+ events, keyed chain valid/,
          );
          await waitForText(page, "wrote it");
          await page.waitForFunction(() =>
            document.body.dataset.status === "completed"
          );
          const path = await shot(page, "4-session-replay");
          if (Deno.env.get("UPDATE_GOLDEN") === "1") {
            await Deno.copyFile(
              `${OUT}/3-session-done.png`,
              README_SCREEN,
            );
          }
          assert.ok((await Deno.stat(path)).size > 0);
          const exported = await page.evaluate(async (id: string) => {
            const md = await fetch(`/api/sessions/${id}/export?format=md`);
            const json = await fetch(`/api/sessions/${id}/export?format=json`);
            return {
              md: await md.text(),
              mdType: md.headers.get("content-type"),
              json: await json.json(),
            };
          }, session.sessionId);
          assert.match(exported.mdType ?? "", /^text\/markdown/);
          assert.match(
            exported.md,
            new RegExp(`^# Session ${session.sessionId}`),
          );
          assert.match(exported.md, /^wrote it$/m);
          assert.match(exported.md, /- fs\.write_file: ASK/);
          assert.equal(exported.json.format_version, "1");
          assert.equal(exported.json.verification.ok, true);
          assert.ok(
            exported.json.events.some((e: { kind: string }) =>
              e.kind === "apply"
            ),
          );
        },
      );
      await web2.stop();
    } finally {
      await (browser ?? await launching.catch(() => undefined))?.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
