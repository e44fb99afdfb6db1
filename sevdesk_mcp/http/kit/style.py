"""The one stylesheet of every page, inlined in ``<style>`` and allowed by its hash
(:data:`STYLE_HASH`, in the one CSP of ``headers``): no stylesheet is fetched, none from
elsewhere is allowed.

Colours meet WCAG AA contrast on white; focus is always visible.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Final

STYLE: Final = """\
:root{--ink:#1b1f24;--muted:#4a5260;--line:#d0d5dd;--bg:#f6f7f9;--card:#fff;--brand:#0b5cad;
--ok:#1b5e20;--bad:#a4161a;--warn-bg:#fff4e5;--warn:#7a3e00}
*{box-sizing:border-box}
html{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);
background:var(--bg)}
body{margin:0}
a{color:var(--brand)}
:focus-visible{outline:3px solid #f5a300;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem}
header.top{background:var(--card);border-bottom:1px solid var(--line)}
header.top .bar{max-width:52rem;margin:0 auto;padding:.75rem 1rem;display:flex;gap:1rem;
align-items:center;flex-wrap:wrap}
.brand{font-weight:700;font-size:1.05rem;color:var(--ink);text-decoration:none;margin-right:auto}
.who{color:var(--muted);font-size:.95rem}
main{max-width:52rem;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.2rem 0 1rem}
h2{font-size:1.2rem;margin:0 0 .5rem;overflow-wrap:anywhere;white-space:pre-wrap}
.lead{color:var(--muted);margin-top:0}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1.25rem;
margin:0 0 1.25rem;box-shadow:0 1px 2px rgba(16,24,40,.05)}
.meta{display:flex;gap:1.5rem;flex-wrap:wrap;color:var(--muted);font-size:.95rem;margin-bottom:.75rem}
.ref{font:700 1.15rem ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.08em;
color:var(--ink)}
dl{margin:.5rem 0 0}
dt{font-weight:600;margin-top:.6rem}
dd{margin:0 0 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere}
.warnings{border-left:4px solid var(--warn);background:var(--warn-bg);color:var(--warn);
padding:.5rem 1rem .5rem 2rem;margin:0 0 .75rem;border-radius:4px}
.warnings li{font-weight:600}
.cut{font-style:italic;color:var(--muted)}
.company{font-weight:700;font-size:1.05rem;margin:0}
.undo{margin:-.25rem 0 .75rem}
q.data{background:#eef2f7;border:1px solid var(--line);border-radius:4px;padding:0 .25em;
font-style:normal;color:var(--ink);white-space:pre-wrap;box-decoration-break:clone;
-webkit-box-decoration-break:clone}
.old{color:var(--muted)}
.table{overflow-x:auto;margin:.35rem 0 0;white-space:normal}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;background:var(--bg)}
.num{text-align:right;white-space:nowrap}
.lang{font-size:.95rem}
.pagetop{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;
flex-wrap:wrap;margin-bottom:.5rem}
.actions{display:flex;gap:.75rem;margin-top:1.25rem;flex-wrap:wrap}
.actions form{margin:0}
button,.button{font:inherit;font-weight:600;padding:.6rem 1.3rem;border-radius:8px;cursor:pointer;
border:2px solid transparent;text-decoration:none;display:inline-block}
.primary{background:var(--ok);color:#fff}
.primary:hover{background:#154a19}
.secondary{background:#fff;color:var(--ink);border-color:#5b6472}
.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
.link{background:none;border:0;padding:0;color:var(--brand);text-decoration:underline;
font-weight:400}
label{display:block;font-weight:600;margin:.75rem 0 .35rem}
input[type=password]{width:100%;font:inherit;padding:.55rem .7rem;border:1px solid #6b7280;
border-radius:6px}
fieldset{margin:1.5rem 0 0;border:1px solid var(--line);border-radius:8px}
fieldset label{font-weight:400;margin:.4rem 0 0}
.help{color:var(--muted);font-size:.92rem;margin:.35rem 0 0}
.notice{border-left:4px solid var(--ok);background:#edf7ee;padding:.75rem 1rem;border-radius:4px;
margin:0 0 1.25rem}
.error{border-left:4px solid var(--bad);background:#fdecea;padding:.75rem 1rem;border-radius:4px;
margin:0 0 1.25rem}
.drop{display:block;border:2px dashed #6b7280;border-radius:10px;padding:1.5rem;text-align:center;
background:#fafbfc;font-weight:400}
.drop.over{border-color:var(--brand);background:#eef5fc}
.drop input{display:block;margin:.75rem auto 0;max-width:100%}
#file-info{min-height:1.5em;font-weight:600}
ul.plain{list-style:none;padding:0;margin:0}
ul.plain li{padding:.4rem 0;border-bottom:1px solid var(--line)}
"""
STYLE_HASH: Final = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
"""The stylesheet's SHA-256, as CSP's ``style-src 'sha256-…'`` names it."""
