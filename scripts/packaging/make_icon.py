"""Draw the bundle's icon, ``mcpb/icon.png``: ``python scripts/packaging/make_icon.py``.

A 512 x 512 PNG (the size Claude Desktop recommends) written with ``zlib`` alone (no imaging
library): a rounded green square with the ruled lines of a ledger and a tick. Run again only to
change the picture; the PNG is committed.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

SIZE = 512
SCALE = 2  # the drawing below is on a 256 x 256 grid
GREEN = (0, 122, 94, 255)
WHITE = (255, 255, 255, 255)
CLEAR = (0, 0, 0, 0)
OUT = Path(__file__).resolve().parents[2] / "mcpb" / "icon.png"


def pixel(px: int, py: int) -> tuple[int, int, int, int]:
    """:returns: the colour at ``(px, py)``."""
    x, y = px / SCALE, py / SCALE
    radius, edge = 48, SIZE / SCALE - 1
    cx = min(max(x, radius), edge - radius)
    cy = min(max(y, radius), edge - radius)
    if (x - cx) ** 2 + (y - cy) ** 2 > radius**2:
        return CLEAR
    if 56 <= x <= 200 and any(top <= y < top + 14 for top in (64, 104, 144)):
        return WHITE
    # the tick: two thick strokes ending at (136, 212)
    if 112 <= x <= 136 and abs((y - 188) - (x - 112)) <= 8:
        return WHITE
    if 136 <= x <= 184 and abs((y - 212) + (x - 136) * 0.9) <= 8:
        return WHITE
    return GREEN


def png() -> bytes:
    """:returns: the icon as PNG bytes (8-bit RGBA, no interlace)."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(SIZE)) for y in range(SIZE)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def main() -> int:
    """:returns: 0 after writing the icon."""
    OUT.write_bytes(png())
    print(f"make_icon: wrote {OUT.name} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
