"""A tool asking in the middle of its call, checked through the official Python MCP SDK:
`ask_model` (sampling: the client's model) and `ask_user` (elicitation: a form with defaults
and enums, answered accept, decline and cancel, each reaching the tool).

Usage: mcp_ask_check.py stdio WORKSPACE COMMAND [ARG...]
       mcp_ask_check.py http URL

Over stdio COMMAND starts `cy-tools-app mcp`; over HTTP the server at URL runs the
session-bearing mode (`--http-sessions`), with the token in `CY_TOOLS_MCP_TOKEN`. A 2025-11-25 client (`legacy`) is asked; a
2026-07-28 one (`auto`), which has no server-to-client requests, gets an error result that says
so. Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_client_check import expect_equal, texts  # noqa: E402
from mcp_http_check import http_client  # noqa: E402

ASKED: list[Any] = []
ANSWER = {"action": "accept"}


async def on_sample(context: Any, params: Any) -> Any:
    ASKED.append(params)
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="blue"), model="test-model", stop_reason="endTurn"
    )


async def on_elicit(context: Any, params: Any) -> Any:
    ASKED.append(params)
    action = ANSWER["action"]
    content = {"name": "Grace", "plan": "pro", "seats": 3, "newsletter": True} if action == "accept" else None
    return types.ElicitResult(action=action, content=content)


async def check(client: Client) -> None:
    modern = client.protocol_version >= "2026-07-28"
    ASKED.clear()
    result = await client.call_tool("ask_model", {"question": "The colour of the sky?"})
    if modern:
        expect_equal("2026-07-28 sampling is_error", result.is_error, True)
        if "2026-07-28 cannot be asked" not in texts(result)[0]:
            raise AssertionError(f"2026-07-28 sampling: says why: {texts(result)!r}")
        expect_equal("2026-07-28: nobody asked", ASKED, [])
        return
    expect_equal("ask_model result", texts(result), ["test-model said: blue"])
    expect_equal("ask_model asked once", len(ASKED), 1)
    asked = ASKED[0]
    expect_equal("sampling max tokens", asked.max_tokens, 20)
    expect_equal("sampling system prompt", asked.system_prompt, "Answer in one word.")
    expect_equal("sampling message", asked.messages[0].content.text, "The colour of the sky?")

    for action, want in (("accept", 'accepted: {"name":"Grace","newsletter":true,"plan":"pro","seats":3}'), ("decline", "declined"), ("cancel", "cancelled")):
        ASKED.clear()
        ANSWER["action"] = action
        result = await client.call_tool("ask_user", {"message": "Confirm your order"})
        expect_equal(f"ask_user {action}", texts(result), [want])
        expect_equal(f"ask_user {action} is_error", result.is_error, False)
        asked = ASKED[0]
        expect_equal("elicitation message", asked.message, "Confirm your order")
        schema = asked.requested_schema
        properties = schema["properties"]
        expect_equal("elicitation required", schema.get("required"), ["name"])
        expect_equal("name default", properties["name"]["default"], "Ada")
        expect_equal(
            "plan options", properties["plan"]["oneOf"], [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Professional"}]
        )
        expect_equal("seats", (properties["seats"]["type"], properties["seats"]["minimum"], properties["seats"]["default"]), ("integer", 1, 1))
        expect_equal("newsletter default", properties["newsletter"]["default"], False)


async def run_all(connect: Any, where: str) -> None:
    for mode in ("legacy", "auto"):
        failure = None
        async with Client(connect(), mode=mode, read_timeout_seconds=60, sampling_callback=on_sample, elicitation_callback=on_elicit) as client:
            protocol = client.protocol_version
            try:
                await check(client)
            except AssertionError as err:
                failure = f"{where}: {mode} mode, protocol {protocol}: {err}"
        if failure:
            sys.exit(f"FAILED {failure}")
        print(f"{where}: {mode} mode, protocol {protocol}: all checks passed")


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[1] == "stdio":
        workspace, command = Path(sys.argv[2]), sys.argv[3:]
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(workspace))
        anyio.run(run_all, lambda: params, "stdio")
    elif len(sys.argv) == 3 and sys.argv[1] == "http":
        url = sys.argv[2]
        anyio.run(run_all, lambda: streamable_http_client(url, http_client=http_client()), "session-bearing HTTP")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
