"""The application's resources and prompt, checked through the official Python MCP SDK: list,
read a fixed resource and a template, get the prompt with typed arguments, completion, the
errors a client acts on, and (where the connection can carry them) subscription updates.

Imported by `mcp_client_check.py` (stdio) and `mcp_http_check.py` (stateless HTTP).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client, MCPError, types

UPDATES: list[str] = []


async def message_handler(message: Any) -> None:
    """Records the URIs of `notifications/resources/updated`."""
    root = getattr(message, "root", message)
    if getattr(root, "method", None) == "notifications/resources/updated":
        UPDATES.append(str(root.params.uri))


def contents(result: Any) -> list[dict[str, Any]]:
    return [c.model_dump(by_alias=True, exclude_none=True, mode="json") for c in result.contents]


async def check_catalog(client: Client, subscriptions: bool) -> None:
    # Here, not at the top: `mcp_client_check` imports this module.
    from mcp_client_check import NOTES, expect_equal

    resources = await client.list_resources()
    expect_equal(
        "resources/list",
        [(r.name, str(r.uri), r.mime_type, r.title) for r in resources.resources],
        [("about_app", "app://about", "text/plain", "About")],
    )
    templates = await client.list_resource_templates()
    expect_equal(
        "resources/templates/list",
        [(t.name, t.uri_template, t.mime_type) for t in templates.resource_templates],
        [("workspace_file", "workspace://{name}", "text/plain")],
    )

    read = await client.read_resource("app://about")
    expect_equal(
        "read app://about",
        contents(read),
        [{"uri": "app://about", "mimeType": "text/plain", "text": "cy-tools-app: the integration suite's application"}],
    )
    read = await client.read_resource("workspace://notes.txt")
    expect_equal(
        "read workspace://notes.txt",
        contents(read),
        [{"uri": "workspace://notes.txt", "mimeType": "text/plain", "text": NOTES}],
    )
    try:
        await client.read_resource("workspace://a/b.txt")
    except MCPError as err:
        # MCP 2026-07-28 (SEP-2164) answers a missing resource as invalid params.
        modern = client.protocol_version >= "2026-07-28"
        expect_equal("unknown resource code", err.code, -32602 if modern else -32002)
        expect_equal(
            "unknown resource message",
            err.message,
            "no resource at `workspace://a/b.txt`; this session's resources are `app://about`, "
            "`workspace://{name}` (`resources/list` and `resources/templates/list` list them)",
        )
    else:
        raise AssertionError("unknown resource: no JSON-RPC error")
    try:
        await client.read_resource("workspace://missing.txt")
    except MCPError as err:
        expect_equal("failed read code", err.code, -32603)
        expect_equal(
            "failed read message",
            err.message,
            "resource `workspace://missing.txt` failed: no file or folder `missing.txt` in the "
            "workspace; list the folder to see what is there",
        )
    else:
        raise AssertionError("failed read: no JSON-RPC error")

    prompts = await client.list_prompts()
    expect_equal(
        "prompts/list",
        [
            (p.name, p.title, p.description, [(a.name, a.required, a.description) for a in p.arguments or []])
            for p in prompts.prompts
        ],
        [
            (
                "summarize_file",
                "Summarize a file",
                "Asks the model to summarize a file of the workspace in so many words.",
                [
                    ("name", True, "The file's name, at the workspace's top level."),
                    ("words", False, "At most this many words [default: 50]."),
                ],
            )
        ],
    )
    got = await client.get_prompt("summarize_file", {"name": "notes.txt", "words": "10"})
    expect_equal(
        "prompts/get summarize_file",
        [m.model_dump(by_alias=True, exclude_none=True, mode="json") for m in got.messages],
        [
            {"role": "user", "content": {"type": "text", "text": "Summarize `notes.txt` in at most 10 words."}},
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {"uri": "workspace://notes.txt", "mimeType": "text/plain", "text": NOTES},
                },
            },
        ],
    )
    try:
        await client.get_prompt("summarize_file", {"name": "notes.txt", "words": "ten"})
    except MCPError as err:
        expect_equal("invalid prompt argument code", err.code, -32602)
        if "`words`" not in err.message:
            raise AssertionError(f"invalid prompt argument message names no argument: {err.message!r}")
    else:
        raise AssertionError("invalid prompt argument: no JSON-RPC error")
    try:
        await client.get_prompt("summarise_file", {"name": "notes.txt"})
    except MCPError as err:
        expect_equal("unknown prompt code", err.code, -32602)
        expect_equal("unknown prompt message", err.message, "unknown prompt `summarise_file`; this session's prompts are `summarize_file`")
    else:
        raise AssertionError("unknown prompt: no JSON-RPC error")

    completed = await client.complete(types.PromptReference(type="ref/prompt", name="summarize_file"), {"name": "name", "value": "no"})
    expect_equal("completion/complete values", completed.completion.values, [])

    if not subscriptions:
        return
    UPDATES.clear()
    await client.subscribe_resource("workspace://notes.txt")
    await client.call_tool("touch_file", {"name": "other.txt"})
    await client.call_tool("touch_file", {"name": "notes.txt"})
    with anyio.fail_after(10):
        while not UPDATES:
            await anyio.sleep(0.02)
    expect_equal("resource updates heard", UPDATES, ["workspace://notes.txt"])
    await client.unsubscribe_resource("workspace://notes.txt")
    await client.call_tool("touch_file", {"name": "notes.txt"})
    await client.call_tool("touch_file", {"name": "notes.txt"})
    await anyio.sleep(0.3)
    expect_equal("no updates after unsubscribing", UPDATES, ["workspace://notes.txt"])
