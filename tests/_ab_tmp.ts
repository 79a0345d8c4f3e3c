import { bwrapArgs } from "../kernel/process/sandbox.ts";
const [rounds, entry, ...variants] = Deno.args;
const V8 = "--v8-flags=--max-semi-space-size=1,--no-sparkplug,--no-maglev";
const denoDir = Deno.env.get("DENO_DIR") ?? Deno.env.get("HOME") + "/.cache/deno";
function deepest(pid: number): number { for (;;) { let c: string[] = []; try { c = Deno.readTextFileSync(`/proc/${pid}/task/${pid}/children`).trim().split(/\s+/).filter(Boolean); } catch { return pid; } if (!c.length) return pid; pid = Number(c[0]); } }
async function once(sandbox: boolean, extra: string[]) {
  const dir = await Deno.makeTempDir();
  const env: Record<string,string> = {
    PLUGGABLEHARNESS_AGENT_PLUGIN: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
    PLUGIN_PROTOCOL_VERSIONS: "1", PLUGIN_MIN_PORT: "10000", PLUGIN_MAX_PORT: "25000",
    PLUGIN_UNIX_SOCKET_DIR: dir, TMPDIR: dir, PATH: "/usr/bin:/bin", DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1",
  };
  const denoArgs = ["run", "--cached-only", "--no-prompt", V8, "--no-config", ...extra, "-A", entry];
  const [cmd, args] = sandbox
    ? ["bwrap", [...bwrapArgs({ readOnly: [denoDir, Deno.execPath(), entry.replace(/\/[^/]+$/, "")], readWrite: [dir], network: false, cwd: dir }), "--", Deno.execPath(), ...denoArgs]]
    : [Deno.execPath(), denoArgs];
  const child = new Deno.Command(cmd as string, { args: args as string[], env, clearEnv: true, stdout: "piped", stderr: "piped", stdin: "null" }).spawn();
  const reader = child.stdout.getReader(); let buf = "";
  while (!buf.includes("\n")) { const { value, done } = await reader.read(); if (done) break; buf += new TextDecoder().decode(value); }
  const pid = deepest(child.pid);
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`); const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpu = (Number(f[11]) + Number(f[12])) * 10;
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))![1]) / 1024;
  child.kill("SIGKILL"); await child.status; reader.releaseLock(); await child.stdout.cancel().catch(()=>{});
  const err = new TextDecoder().decode((await new Response(child.stderr).arrayBuffer()));
  await Deno.remove(dir, { recursive: true });
  if (!buf.startsWith("1|1|")) throw new Error("bad handshake " + buf + err);
  return { cpu, hwm, err };
}
const res: Record<string, {cpu:number,hwm:number}[]> = {};
for (let r = 0; r <= Number(rounds); r++) for (const v of variants) {
  const x = await once(v.startsWith("sb"), v.endsWith("nocc") ? ["--no-code-cache"] : []);
  if (r === 0 && x.err) console.log(v, "stderr:", x.err.slice(0, 300));
  if (r > 0) (res[v] ??= []).push(x);
}
const med = (a: number[]) => { const s = [...a].sort((x,y)=>x-y); return s[Math.floor(s.length/2)]; };
for (const [v, xs] of Object.entries(res)) console.log(v.padEnd(10), "cpu", med(xs.map(x=>x.cpu)), "hwm", med(xs.map(x=>x.hwm)).toFixed(1));
