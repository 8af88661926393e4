"""`cy-tools mcp` with the switches for hundreds of tools, driven by the official Python MCP
client, over a gateway spec (`read_file`, `@modelcontextprotocol/server-everything` as
`everything__*`, `mcp-server-time` as `time__get_current_time`), with `--approve none`.

Usage: mcp_hundreds_check.py search stdio WORKSPACE COMMAND [ARG...]
       mcp_hundreds_check.py search http SESSIONS_URL
       mcp_hundreds_check.py code-only stdio WORKSPACE COMMAND [ARG...]

`search` (the server started with `--tool-search --always read_file`): the list is `read_file`
and `search_tools`; a search for the current time finds `time__get_current_time`, the client is
told the list changed (`notifications/tools/list_changed`), lists it, and calls it; over stdio
and the session-bearing HTTP mode (`--http-sessions`, the token in `CY_TOOLS_MCP_TOKEN`).

`code-only` (the server started with `--code-only`): the list is `execute_code` alone; its code
searches, calls `cy_sdk.servers.time.get_current_time` and `cy_sdk.servers.everything.echo`,
and lists the modules; a server tool called directly is unknown.

Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_http_check import http_client  # noqa: E402


def expect(what: str, ok: bool, detail: Any = "") -> None:
    if not ok:
        raise AssertionError(f"{what}: {detail}")


def text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def listener() -> tuple[anyio.Event, Any]:
    """An event set when the client is told the tools changed, and the handler that sets it."""
    told = anyio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            told.set()

    return told, on_message


async def names(client: Client) -> list[str]:
    return [t.name for t in (await client.list_tools()).tools]


async def check_search(client: Client, told: anyio.Event) -> None:
    listed = await names(client)
    expect("the kept tool and search_tools are listed", listed == ["read_file", "search_tools"], listed)
    result = await client.call_tool("search_tools", {"query": "current time in a timezone", "limit": 1})
    expect("the search finds the time tool", not result.is_error and "- time__get_current_time: " in text(result), text(result))
    with anyio.fail_after(10):
        await told.wait()
    listed = await names(client)
    expect("the found tool is listed", listed == ["read_file", "time__get_current_time", "search_tools"], listed)
    result = await client.call_tool("time__get_current_time", {"timezone": "Asia/Tokyo"})
    expect("the found tool answers", not result.is_error and "Asia/Tokyo" in text(result), text(result))


CODE = """
import json, cy_sdk
now = cy_sdk.servers.time.get_current_time(timezone="Asia/Tokyo")
print(json.dumps({
    "timezone": now["timezone"],
    "echo": cy_sdk.servers.everything.echo(message="from code"),
    "found": cy_sdk.search("current time", 1)[0]["path"],
    "modules": [s["module"] for s in cy_sdk.sources()],
}))
"""


async def check_code_only(client: Client) -> None:
    listed = await client.list_tools()
    expect("execute_code alone is listed", [t.name for t in listed.tools] == ["execute_code"], [t.name for t in listed.tools])
    description = listed.tools[0].description or ""
    expect("its description says how to reach the tools", "cy_sdk.tools.NAME(...)" in description, description)
    result = await client.call_tool("execute_code", {"code": CODE})
    expect("the code runs", not result.is_error, text(result))
    # The first block is what the code printed (a structured copy of the run follows).
    printed = result.content[0].text
    try:
        seen = json.loads(printed)
    except ValueError:
        seen = printed
    expected = {
        "timezone": "Asia/Tokyo",
        "echo": "Echo: from code",
        "found": "cy_sdk.servers.time.get_current_time",
        "modules": ["cy_sdk.tools", "cy_sdk.servers.everything", "cy_sdk.servers.time"],
    }
    expect("the code reaches the servers' tools", seen == expected, seen)
    try:
        result = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        expect("a server tool called directly is refused", result.is_error, text(result))
    except Exception as err:  # the SDK raises the JSON-RPC error of an unknown tool
        expect("a server tool called directly is unknown", "unknown tool `time__get_current_time`; valid tools are `execute_code`" in str(err), err)


def stdio_params(workspace: Path, command: list[str]) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith("CY_TOOLS_")}
    return StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(workspace))


async def search_stdio(workspace: Path, command: list[str]) -> None:
    try:
        told, on_message = listener()
        async with Client(stdio_params(workspace, command), mode="legacy", read_timeout_seconds=60, message_handler=on_message) as client:
            await check_search(client, told)
    except AssertionError as err:
        sys.exit(f"FAILED search over stdio: {err}")
    print("search: stdio: kept and search_tools listed, a search told, the found tool listed and called")


async def search_http(sessions: str) -> None:
    try:
        told, on_message = listener()
        async with Client(streamable_http_client(sessions, http_client=http_client(os.environ["CY_TOOLS_MCP_TOKEN"])), mode="legacy", read_timeout_seconds=60, message_handler=on_message) as client:
            await check_search(client, told)
    except AssertionError as err:
        sys.exit(f"FAILED search over HTTP: {err}")
    print("search: http: kept and search_tools listed, a search told, the found tool listed and called")


async def code_only_stdio(workspace: Path, command: list[str]) -> None:
    try:
        async with Client(stdio_params(workspace, command), mode="legacy", read_timeout_seconds=60) as client:
            await check_code_only(client)
    except AssertionError as err:
        sys.exit(f"FAILED code-only over stdio: {err}")
    print("code-only: stdio: execute_code alone listed, the servers' tools reached from code")


def main() -> None:
    if len(sys.argv) >= 5 and sys.argv[1:3] == ["search", "stdio"]:
        anyio.run(search_stdio, Path(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) == 4 and sys.argv[1:3] == ["search", "http"]:
        anyio.run(search_http, sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1:3] == ["code-only", "stdio"]:
        anyio.run(code_only_stdio, Path(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
