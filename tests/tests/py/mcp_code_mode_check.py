"""Drive `cy-tools mcp --code-mode` with the official Python MCP SDK: `execute_code` is described
with the functions of `cy_sdk.tools`, and a call of it runs code that uses two tools through them.

Usage: mcp_code_mode_check.py WORKSPACE COMMAND [ARG...]

COMMAND [ARG...] starts the server, serving `read_file`, `write_file` and `execute_code` over
WORKSPACE in code mode. Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

CODE = """
import json, cy_sdk
cy_sdk.tools.write_file("made.txt", content="made by code")
print(json.dumps({"read": cy_sdk.tools.read_file("made.txt")}))
"""


def expect(what: str, ok: bool, got: Any) -> None:
    if not ok:
        raise AssertionError(f"{what}: got {got!r}")


async def run(workspace: Path, command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(workspace))
    failure = None
    async with Client(params, read_timeout_seconds=60) as client:
        try:
            listed = await client.list_tools()
            execute_code = next(t for t in listed.tools if t.name == "execute_code")
            description = execute_code.description or ""
            for line in ("Code mode is on", "- read_file(path, *, limit=None, offset=1): ",
                         "- write_file(path, content): "):
                expect(f"execute_code's description has {line!r}", line in description, description)
            result = await client.call_tool("execute_code", {"code": CODE})
            text = result.content[0].text
            expect("execute_code is_error", result.is_error is False, text)
            expect("what the code read", json.loads(text) == {"read": "     1\tmade by code"}, text)
            made = (workspace / "made.txt").read_text()
            expect("the file the code wrote", made == "made by code", made)
        except AssertionError as err:
            failure = str(err)
    if failure:
        sys.exit(f"FAILED {failure}")
    print("code mode over MCP: all checks passed")


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    anyio.run(run, Path(sys.argv[1]), sys.argv[2:])


if __name__ == "__main__":
    main()
