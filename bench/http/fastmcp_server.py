"""The benchmark's `read_file`, served by FastMCP 4 over streamable HTTP, stateless with JSON
answers (the settings cy-tools and the rmcp server use).

Usage: fastmcp_server.py PORT WORKSPACE
"""

import sys
from pathlib import Path

from fastmcp import FastMCP

WORKSPACE = Path(sys.argv[2]).resolve()
mcp = FastMCP("fastmcp-bench")


@mcp.tool(annotations={"readOnlyHint": True, "destructiveHint": False})
def read_file(path: str, offset: int = 1, limit: int | None = None) -> str:
    """Read a UTF-8 text file from the workspace, with line numbers (`cat -n` style)."""
    target = (WORKSPACE / path).resolve()
    if not target.is_relative_to(WORKSPACE):
        raise ValueError(f"`{path}` is outside the workspace")
    lines = target.read_text().splitlines()
    end = len(lines) if limit is None else offset - 1 + limit
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines[offset - 1 : end], start=offset))


if __name__ == "__main__":
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=int(sys.argv[1]),
        stateless_http=True,
        json_response=True,
        show_banner=False,
        log_level="warning",
    )
