"""The upload page's one script, served as a file (``/web/upload.js``): the CSP allows scripts
from this origin only, never inline (``kit.headers``).

The upload page works without it (a plain file field in a form) and only gains drag and drop
and the file's size and type shown before sending.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.http.connection import Exchange

SCRIPT: Final = b"""\
(function () {
  var input = document.getElementById("file");
  var info = document.getElementById("file-info");
  var zone = document.getElementById("drop");
  if (!input || !info || !zone) { return; }
  var max = Number(zone.getAttribute("data-max"));
  function size(n) {
    if (n < 1024) { return n + " B"; }
    if (n < 1048576) { return (n / 1024).toFixed(1) + " KiB"; }
    return (n / 1048576).toFixed(1) + " MiB";
  }
  function show() {
    var file = input.files && input.files[0];
    if (!file) { info.textContent = ""; return; }
    var text = file.name + " \\u00b7 " + size(file.size) + " \\u00b7 " + (file.type || "?");
    if (file.size > max) { text += " \\u00b7 " + zone.getAttribute("data-too-large"); }
    info.textContent = text;
  }
  input.addEventListener("change", show);
  zone.addEventListener("dragover", function (e) {
    e.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
  zone.addEventListener("drop", function (e) {
    e.preventDefault();
    zone.classList.remove("over");
    if (e.dataTransfer && e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;
      show();
    }
  });
})();
"""


async def send_script(exchange: Exchange) -> None:
    """Serve ``GET /web/upload.js``."""
    await exchange.respond(200, [("content-type", "text/javascript; charset=utf-8")], SCRIPT)
