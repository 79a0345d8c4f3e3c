/**
 * The web UI's page and style sheet (the browser module is in
 * `_app_js.ts`), kept as strings so that the plugin needs no read
 * permission.
 *
 * @module
 */
export { APP_JS } from "./_app_js.ts";

/** The one HTML page; `/assets/app.js` picks the view by path. */
export const INDEX_HTML: string = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent — web UI</title>
<link rel="stylesheet" href="/assets/style.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`;

/** The style sheet. */
export const STYLE_CSS: string = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #6b7385; --bg: #fbfbfd;
  --panel: #f1f3f8; --line: #d9dde7; --accent: #2f5fd0; --ok: #1d7f45; --bad: #b3261e; --warn: #9a6700; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e8ee; --muted: #9aa2b4; --bg: #14161c; --panel: #1d2029; --line: #2d3240;
    --accent: #7ea2ff; --ok: #5cc28a; --bad: #ff8a80; --warn: #e0b050; }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem 1.5rem; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 1.3rem; margin: 0.2rem 0 0.8rem; }
h2 { font-size: 1rem; margin: 0 0 0.4rem; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
pre { margin: 0.3rem 0; padding: 0.5rem; background: var(--panel); border-radius: 4px; overflow-x: auto; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.filters, #new-session { margin: 0.5rem 0; display: flex; gap: 0.5rem; align-items: center; }
#new-prompt { flex: 1; max-width: 40rem; }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.25rem 0.5rem; }
button { cursor: pointer; background: var(--panel); }
button:disabled { opacity: 0.5; cursor: default; }
.status { padding: 0.05rem 0.45rem; border-radius: 999px; background: var(--panel); font-size: 12px; }
.s-running { color: var(--accent); } .s-completed { color: var(--ok); }
.s-failed, .s-cancelled, [class*="s-error"] { color: var(--bad); }
.head { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; }
.head h1 { margin: 0; }
.spacer { flex: 1; }
#verify { margin: 0.4rem 0 0.8rem; color: var(--muted); }
#verify.ok { color: var(--ok); } #verify.broken { color: var(--bad); }
.columns { display: grid; grid-template-columns: minmax(0, 1fr) 18rem; gap: 1.2rem; }
.panel { background: var(--panel); border-radius: 6px; padding: 0.6rem 0.8rem; margin-bottom: 0.8rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.15rem 0.6rem; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
#transcript { list-style: none; padding: 0; margin: 0; }
.event { border-bottom: 1px solid var(--line); padding: 0.45rem 0; }
.who { font-size: 11px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.msg .text { white-space: pre-wrap; }
.role-user .text { font-weight: 600; }
.tool-use code { color: var(--muted); }
.thinking { color: var(--muted); }
.fallback summary { color: var(--muted); cursor: pointer; overflow-wrap: anywhere; }
.decision { font-size: 12px; padding: 0 0.35rem; border-radius: 3px; background: var(--panel); }
.d-allow { color: var(--ok); } .d-deny { color: var(--bad); } .d-ask { color: var(--warn); }
.d-add { color: var(--ok); } .d-remove { color: var(--bad); } .d-hunk { color: var(--muted); }
.t-bold { font-weight: 700; } .t-italic { font-style: italic; } .t-dim { color: var(--muted); }
.t-code { font-family: ui-monospace, monospace; } .t-error { color: var(--bad); }
.t-warning { color: var(--warn); } .t-success { color: var(--ok); }
#streaming .delta { white-space: pre-wrap; padding: 0.4rem 0; }
#streaming .delta.thinking { color: var(--muted); }
.fallback summary { color: var(--muted); cursor: pointer; overflow-wrap: anywhere; }
#approvals { border: 2px solid var(--warn); border-radius: 6px; padding: 0.6rem; margin: 0.8rem 0; }
.approval + .approval { border-top: 1px solid var(--line); margin-top: 0.6rem; padding-top: 0.6rem; }
.buttons { display: flex; gap: 0.5rem; margin-top: 0.4rem; }
button.approve { background: var(--ok); color: #fff; border-color: var(--ok); }
button.reject { background: var(--bad); color: #fff; border-color: var(--bad); }
#send { display: flex; gap: 0.5rem; margin-top: 0.8rem; }
#send textarea { flex: 1; }
.meta { padding: 0.15rem 0; } .meta.gone { opacity: 0.5; }
.tone-success { color: var(--ok); } .tone-warning { color: var(--warn); } .tone-danger { color: var(--bad); }
#error { position: fixed; bottom: 1rem; right: 1rem; max-width: 30rem; background: var(--bad); color: #fff; padding: 0.5rem 0.8rem; border-radius: 4px; }
#error:empty { display: none; }
`;
