/**
 * The web hub's one stylesheet, served at `/static/hub.css` by the hub (no CDN, no web fonts). It is
 * small, uses system fonts, and stacks everything to one column at phone width.
 */
export const CSS_PATH = "/static/hub.css";

export const HUB_CSS = `
:root { --fg:#1b1f24; --muted:#57606a; --line:#d8dee4; --bg:#fff; --soft:#f6f8fa; --accent:#0a5bd3;
  --ok:#1a7f37; --bad:#cf222e; --tool:#fff8c5; --toolline:#d4a72c; color-scheme: light; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); text-decoration:none; } a:hover { text-decoration:underline; }
header.top { border-bottom:1px solid var(--line); background:var(--soft); }
header.top nav { max-width:1040px; margin:0 auto; padding:.6rem 1rem; display:flex; gap:1rem; align-items:center; flex-wrap:wrap; }
header.top .brand { font-weight:700; color:var(--fg); margin-right:auto; }
header.top form { margin:0; }
main { max-width:1040px; margin:0 auto; padding:1rem; }
h1 { font-size:1.6rem; margin:.4rem 0; word-break:break-word; } h2 { font-size:1.2rem; margin:1.6rem 0 .5rem; border-bottom:1px solid var(--line); padding-bottom:.2rem; }
h3 { font-size:1.02rem; margin:1rem 0 .3rem; }
code, pre, .mono { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:.86em; }
pre { background:var(--soft); border:1px solid var(--line); border-radius:6px; padding:.6rem .8rem; overflow-x:auto; white-space:pre-wrap; word-break:break-word; }
.muted { color:var(--muted); } .small { font-size:.85em; }
.tag { display:inline-block; background:#ddf4ff; color:#0550ae; border-radius:1em; padding:0 .6em; margin:0 .25em .25em 0; font-size:.85em; }
.badge { display:inline-block; border-radius:4px; padding:0 .4em; font-size:.8em; border:1px solid var(--line); }
.badge.ok { color:var(--ok); border-color:var(--ok); } .badge.bad { color:var(--bad); border-color:var(--bad); }
.scroll { overflow-x:auto; }
table { border-collapse:collapse; width:100%; margin:.3rem 0 1rem; }
th, td { text-align:left; padding:.35rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:var(--soft); font-weight:600; white-space:nowrap; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
ul.cards { list-style:none; padding:0; margin:0; display:grid; grid-template-columns:repeat(auto-fill,minmax(280px,1fr)); gap:.7rem; }
ul.cards li { border:1px solid var(--line); border-radius:8px; padding:.7rem .9rem; }
ul.cards .name { font-weight:600; word-break:break-word; }
form.inline { display:inline; }
form.stack { display:grid; gap:.5rem; max-width:520px; }
input, select, button { font:inherit; padding:.4rem .55rem; border:1px solid var(--line); border-radius:6px; max-width:100%; }
button { background:var(--accent); color:#fff; border-color:var(--accent); cursor:pointer; }
button.secondary { background:var(--bg); color:var(--fg); border-color:var(--line); }
button.danger { background:var(--bg); color:var(--bad); border-color:var(--bad); }
.search { display:flex; gap:.5rem; margin:.8rem 0; } .search input { flex:1; min-width:0; }
.notice { border:1px solid var(--toolline); background:var(--tool); border-radius:6px; padding:.6rem .8rem; margin:.8rem 0; word-break:break-all; }
.error { border:1px solid var(--bad); background:#ffebe9; border-radius:6px; padding:.6rem .8rem; margin:.8rem 0; }
.schema { border-left:3px solid var(--line); padding-left:.6rem; margin:.3rem 0; }
.schema .prop { margin:.15rem 0; } .schema .type { color:#8250df; } .schema .req { color:var(--bad); font-size:.8em; }
.tool { border:1px solid var(--line); border-radius:8px; padding:.5rem .8rem; margin:.6rem 0; }
.turn { border:1px solid var(--line); border-radius:8px; margin:.5rem 0; overflow:hidden; }
.turn > .who { background:var(--soft); padding:.2rem .6rem; font-size:.8em; font-weight:600; display:flex; justify-content:space-between; gap:.5rem; }
.turn > .body { padding:.4rem .6rem; white-space:pre-wrap; word-break:break-word; font-family:ui-monospace,Menlo,Consolas,monospace; font-size:.85em; }
.turn.system > .who { background:#eef1f4; } .turn.user > .who { background:#ddf4ff; }
.turn.assistant > .who { background:#fbefff; } .turn.tool > .who { background:#dafbe1; }
.toolresponse { display:block; background:#dafbe1; border:1px solid #4ac26b; border-radius:4px; padding:.2rem .4rem; margin:.2rem 0; color:inherit; }
.toolcall { display:block; background:var(--tool); border:1px solid var(--toolline); border-radius:4px; padding:.2rem .4rem; margin:.2rem 0; }
.reward { font-variant-numeric:tabular-nums; }
details.episode { border:1px solid var(--line); border-radius:8px; padding:.4rem .7rem; margin:.5rem 0; }
details.episode > summary { cursor:pointer; display:flex; flex-wrap:wrap; gap:.3rem 1rem; align-items:center; }
svg.chart { max-width:100%; height:auto; display:block; }
.kv { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1rem; } .kv dt { color:var(--muted); } .kv dd { margin:0; word-break:break-all; }
footer { max-width:1040px; margin:2rem auto; padding:0 1rem; color:var(--muted); font-size:.85em; }
@media (max-width: 600px) {
  body { font-size:14px; } main { padding:.7rem; } h1 { font-size:1.3rem; }
  .kv { grid-template-columns:1fr; } .kv dd { margin-bottom:.3rem; }
  th, td { padding:.3rem .35rem; }
}
`;
