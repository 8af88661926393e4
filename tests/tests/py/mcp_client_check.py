"""Drive a `cy-tools mcp` server with the official Python MCP SDK and check exact results.

Usage: mcp_client_check.py {builtin|app} WORKSPACE COMMAND [ARG...]

COMMAND [ARG...] starts the server; WORKSPACE is its `--root` (this script writes the files it
reads). `builtin` expects `cy-tools mcp --tools read_file,execute_code,list_directory`; `app`
expects an application's cy-tools serving `read_file` and its own `word_stats` and `word_lengths`,
which answer structured JSON (an object, and a list MCP carries as `{"result": [...]}`, which the
SDK checks against the declared output schema), and `record_clip`, which answers audio, an
embedded resource and a resource link, and logs at the level the client asks for; and its
resources and prompt (`mcp_catalog_check.py`), with subscription updates. Each check runs twice: once with the SDK's default negotiation (`auto`:
`server/discover`, protocol 2026-07-28) and once with the `initialize` handshake (`legacy`),
the way most desktop clients still connect. Environment variables whose names start with
`CY_TOOLS_` are passed on to the server. Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, MCPError, StdioServerParameters

from mcp_catalog_check import check_catalog, message_handler

NOTES = "alpha\nbeta\n"


def expect_equal(what: str, got: Any, want: Any) -> None:
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


async def check_common(client: Client, names: list[str]) -> None:
    listed = await client.list_tools()
    expect_equal("tools/list names, sorted", [t.name for t in listed.tools], names)
    read_file = next(t for t in listed.tools if t.name == "read_file")
    a = read_file.annotations
    expect_equal(
        "read_file annotations",
        (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint),
        (True, False, True, False),
    )
    expect_equal("read_file input schema type", read_file.input_schema["type"], "object")
    expect_equal("read_file required", read_file.input_schema["required"], ["path"])

    result = await client.call_tool("read_file", {"path": "notes.txt"})
    expect_equal("read_file is_error", result.is_error, False)
    expect_equal("read_file text", texts(result), ["     1\talpha\n     2\tbeta"])
    expect_equal("read_file structured content", result.structured_content, None)

    # Our validation, not the client's: a wrong type comes back as an error result.
    result = await client.call_tool("read_file", {"path": 3})
    expect_equal("invalid call is_error", result.is_error, True)
    expect_equal(
        "invalid call text",
        texts(result),
        [
            "invalid arguments for `read_file`: `path`: expected a string, got integer `3`; "
            "valid fields are `path` (string, required), `limit` (integer or null), `offset` (integer)"
        ],
    )

    result = await client.call_tool("read_file", {"path": "missing.txt"})
    expect_equal("tool error is_error", result.is_error, True)
    expect_equal(
        "tool error text",
        texts(result),
        ["no file or folder `missing.txt` in the workspace; list the folder to see what is there"],
    )

    try:
        await client.call_tool("reed_file", {"path": "notes.txt"})
    except MCPError as err:
        expect_equal("unknown tool code", err.code, -32602)
        valid = ", ".join(f"`{n}`" for n in names)
        expect_equal("unknown tool message", err.message, f"unknown tool `reed_file`; valid tools are {valid}")
        expect_equal("unknown tool data", err.data, {"tool": "reed_file", "valid_tools": names})
    else:
        raise AssertionError("unknown tool: no JSON-RPC error")


async def check_builtin(client: Client) -> None:
    await check_common(client, ["execute_code", "list_directory", "read_file"])
    result = await client.call_tool("execute_code", {"code": "print(6*7)"})
    expect_equal("execute_code is_error", result.is_error, False)
    run = {"exit_code": 0, "stdout": "42\n", "stderr": "", "truncated": False}
    # The text the model reads, then the text copy of the structured content (which the SDK
    # checked against the declared output schema).
    expect_equal("execute_code text", texts(result), ["42", json.dumps(run, separators=(",", ":"), sort_keys=True)])
    expect_equal("execute_code structured content", result.structured_content, run)
    # Code that ran and exited 1 is a normal result: its exit code is the answer.
    result = await client.call_tool("execute_code", {"code": "import sys\nsys.exit(1)", "filename": None})
    expect_equal("execute_code exit 1 is_error", result.is_error, False)
    expect_equal("execute_code exit 1 code", result.structured_content["exit_code"], 1)
    # The code ran in the workspace: the file tools see what it wrote.
    result = await client.call_tool(
        "execute_code", {"code": "open('out.txt', 'w').write('written by code\\n')"}
    )
    expect_equal("execute_code write is_error", result.is_error, False)
    result = await client.call_tool("read_file", {"path": "out.txt"})
    expect_equal("file written by code", texts(result), ["     1\twritten by code"])


async def check_app(client: Client) -> None:
    await check_common(client, ["read_file", "record_clip", "touch_file", "word_lengths", "word_stats"])
    result = await client.call_tool("word_stats", {"text": "to be or not to be"})
    stats = {"words": 6, "distinct": 4, "most_common": "be"}
    expect_equal("word_stats is_error", result.is_error, False)
    expect_equal("word_stats structured content", result.structured_content, stats)
    # The text copy the specification asks for, for clients that ignore structured content.
    expect_equal("word_stats text copy", [json.loads(t) for t in texts(result)], [stats])

    listed = await client.list_tools()
    lengths = next(t for t in listed.tools if t.name == "word_lengths")
    expect_equal("word_lengths output schema required", lengths.output_schema["required"], ["result"])
    # The SDK validates structured content against the output schema it was shown.
    result = await client.call_tool("word_lengths", {"text": "to be or not"})
    expect_equal("word_lengths is_error", result.is_error, False)
    expect_equal("word_lengths structured content", result.structured_content, {"result": [2, 2, 2, 3]})
    expect_equal(
        "word_lengths text copy", [json.loads(t) for t in texts(result)], [{"result": [2, 2, 2, 3]}]
    )


LOGS: list[tuple[str, Any]] = []


async def log_received(params: Any) -> None:
    LOGS.append((params.level, params.data))


async def check_clip(client: Client, mode: str, stateless: bool = False) -> None:
    """`record_clip`: audio, an embedded resource and a resource link, and the messages it logs
    at or above the level asked for (per request on 2026-07-28, by `logging/setLevel` before;
    a stateless server keeps no level between requests, so there it stays `info`)."""

    async def call(level: str) -> Any:
        LOGS.clear()
        if mode == "legacy":
            await client.set_logging_level(level)
            return await client.call_tool("record_clip", {"name": "take1"})
        meta = {"io.modelcontextprotocol/logLevel": level}
        return await client.call_tool("record_clip", {"name": "take1"}, meta=meta)

    result = await call("debug")
    expect_equal("record_clip is_error", result.is_error, False)
    blocks = [block.model_dump(by_alias=True, exclude_none=True) for block in result.content]
    expect_equal(
        "record_clip content",
        blocks,
        [
            {"type": "text", "text": "recorded `take1`"},
            {
                "type": "audio",
                "data": "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==",
                "mimeType": "audio/wav",
            },
            {
                "type": "resource",
                "resource": {"uri": "clip://take1/transcript", "mimeType": "text/plain", "text": "(silence)"},
            },
            {"type": "resource_link", "name": "take1", "uri": "clip://take1"},
        ],
    )
    info = ("info", "recording `take1`")
    kept = not (stateless and mode == "legacy")
    debug = [info, ("debug", {"clip": "take1", "samples": 1})] if kept else [info]
    expect_equal("record_clip logs at debug", LOGS, debug)
    await call("warning")
    expect_equal("record_clip logs at warning", LOGS, [] if kept else [info])


async def run(kind: str, workspace: Path, command: list[str]) -> None:
    (workspace / "notes.txt").write_text(NOTES)
    env = {k: v for k, v in os.environ.items() if k.startswith("CY_TOOLS_")}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(workspace))
    for mode in ("auto", "legacy"):
        failure = None
        async with Client(
            params,
            mode=mode,
            read_timeout_seconds=60,
            logging_callback=log_received,
            message_handler=message_handler,
        ) as client:
            protocol = client.protocol_version
            try:
                info = client.server_info
                expect_equal("server name", info.name if info else None, "cy-tools")
                if kind == "builtin":
                    await check_builtin(client)
                else:
                    await check_app(client)
                    await check_clip(client, mode)
                    # Updates reach a client of the protocol that has subscriptions (2026-07-28
                    # replaced them).
                    await check_catalog(client, subscriptions=mode == "legacy")
            except AssertionError as err:
                # Reported after the client has closed, so it is not buried in task groups.
                failure = f"{kind}: {mode} mode, protocol {protocol}: {err}"
        if failure:
            sys.exit(f"FAILED {failure}")
        print(f"{kind}: {mode} mode, protocol {protocol}: all checks passed")


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[1] not in ("builtin", "app"):
        sys.exit(__doc__)
    anyio.run(run, sys.argv[1], Path(sys.argv[2]), sys.argv[3:])


if __name__ == "__main__":
    main()
