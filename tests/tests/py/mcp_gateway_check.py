"""`cy-tools mcp` as a gateway, driven by the official Python MCP client: the server serves a
spec's built-in `read_file` beside the tools of two upstream MCP servers it starts confined,
`@modelcontextprotocol/server-everything` (`everything__*`) and `mcp-server-time`
(`time__get_current_time`), whose tools count as destructive (the spec does not trust their
annotations), so the gateway asks before each call.

Usage: mcp_gateway_check.py stdio WORKSPACE COMMAND [ARG...]
       mcp_gateway_check.py http STATELESS_URL SESSIONS_URL SESSIONS_PID
       mcp_gateway_check.py changes stdio WORKSPACE COMMAND [ARG...]
       mcp_gateway_check.py changes http STATELESS_URL SESSIONS_URL

Over stdio COMMAND starts the gateway with `--approve destructive`; over HTTP the first server is
stateless, the second session-bearing (`--http-sessions`), both with the token in
`CY_TOOLS_MCP_TOKEN` and HTTP's default approval (destructive). Checks, in both of the SDK's
negotiations (`legacy`: the `initialize` handshake, 2025-11-25; `auto`: 2026-07-28) where the
transport can ask:

* list: the built-in and the servers' tools together, the servers' declared destructive;
* call through: an accepted `everything__echo` answers `Echo: …` and asked once, naming the
  call; `time__get_current_time` answers the time in the zone asked; `read_file` never asks;
* bad arguments: `everything__get-sum` with a field `c` is an error naming it, and nobody is asked;
  with a string for `a`, once approved, an error naming `a` (the gateway checks the server's
  schema before the server sees the call);
* declined: a declined `everything__echo` is an error saying so;
* a client that cannot be asked (no elicitation callback; over stateless HTTP a 2025-11-25
  client) is refused, the message naming the ways out (`--approve none`, and over stateless
  HTTP `--http-sessions` and the spec's `trust_annotations`);
* an upstream killed mid-call (stdio and session-bearing HTTP): the call running on it answers
  an error naming the server, and the next call starts it again and answers.

`changes` fronts the tests' fault server (`fault__*`, with `--approve none`), whose `change`
changes its tool list and says so (`notifications/tools/list_changed`): a 2025-11-25 client
over stdio or the session-bearing HTTP mode is told in turn, a stateless HTTP or 2026-07-28
client is not (it cannot be) and sees the new list on its next `tools/list`; either way the new
tool answers and the one gone is unknown.

Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_http_check import http_client  # noqa: E402

ASKED: list[str] = []
ANSWER = {"action": "accept"}


def expect(what: str, ok: bool, detail: Any = "") -> None:
    if not ok:
        raise AssertionError(f"{what}: {detail}")


def text(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def on_elicit(context: Any, params: Any) -> Any:
    ASKED.append(params.message)
    action = ANSWER["action"]
    return types.ElicitResult(action=action, content={} if action == "accept" else None)


def upstream_pids(server_pid: int | None) -> list[int]:
    """The server-everything processes the gateway started: below `server_pid` over HTTP, else
    below this process, whose child the stdio gateway is."""
    ancestor = os.getpid() if server_pid is None else server_pid
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if "server-everything" in cmdline and below(int(entry), ancestor):
            found.append(int(entry))
    return found


def below(pid: int, ancestor: int) -> bool:
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
        if pid == ancestor:
            return True
    return False


async def check_list(client: Client) -> None:
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    for name in ("read_file", "everything__echo", "everything__get-sum", "time__get_current_time"):
        expect(f"`{name}` is listed", name in tools, sorted(tools))
    expect("a server's tool is declared destructive", tools["everything__echo"].annotations.destructive_hint is True, tools["everything__echo"].annotations)
    expect("read_file is read-only", tools["read_file"].annotations.read_only_hint is True, tools["read_file"].annotations)
    expect("the time tool keeps its schema", "timezone" in tools["time__get_current_time"].input_schema["properties"], tools["time__get_current_time"].input_schema)


async def check_calls(client: Client, workspace: Path | None) -> None:
    """List, call through (accepted), bad arguments, declined."""
    await check_list(client)
    ASKED.clear()
    ANSWER["action"] = "accept"
    result = await client.call_tool("everything__echo", {"message": "through the gateway"})
    expect("accepted echo", not result.is_error and text(result) == "Echo: through the gateway", text(result))
    expect("asked once, naming the call", len(ASKED) == 1 and ASKED[0].startswith("Allow `everything__echo`"), ASKED)
    result = await client.call_tool("time__get_current_time", {"timezone": "Asia/Tokyo"})
    expect("the time server answers", not result.is_error and "Asia/Tokyo" in text(result), text(result))
    expect("asked again for the time", len(ASKED) == 2, ASKED)

    if workspace is not None:
        (workspace / "notes.txt").write_text("alpha\n")
        result = await client.call_tool("read_file", {"path": "notes.txt"})
        expect("read_file runs without asking", not result.is_error and len(ASKED) == 2, (text(result), ASKED))

    # A field the tool does not have is answered before anybody is asked; a value of the wrong
    # type once the call is approved, by the gateway's validator, before the upstream sees it.
    ASKED.clear()
    result = await client.call_tool("everything__get-sum", {"a": 2, "b": 3, "c": 4})
    expect("an unknown field is an error", result.is_error and "`c`" in text(result), text(result))
    expect("nobody was asked about it", ASKED == [], ASKED)
    result = await client.call_tool("everything__get-sum", {"a": "two", "b": 3})
    expect("a wrong type is an error naming the field", result.is_error and "`a`" in text(result), text(result))
    ASKED.clear()

    ANSWER["action"] = "decline"
    result = await client.call_tool("everything__echo", {"message": "declined"})
    expect("a declined call is an error", result.is_error and "declined it" in text(result), text(result))
    expect("declined: asked once", len(ASKED) == 1, ASKED)
    ANSWER["action"] = "accept"


async def check_killed(client: Client, server_pid: int | None) -> None:
    """An upstream killed while a call runs on it: the call answers an error naming it, and the
    next call starts it again."""
    ANSWER["action"] = "accept"
    result: dict[str, Any] = {}

    async def long_call() -> None:
        result["r"] = await client.call_tool("everything__trigger-long-running-operation", {"duration": 20, "steps": 20})

    started = time.monotonic()
    async with anyio.create_task_group() as group:
        group.start_soon(long_call)
        pids: list[int] = []
        for _ in range(100):
            await anyio.sleep(0.1)
            pids = upstream_pids(server_pid)
            # Asked and running: the operation has started upstream.
            if pids and ASKED and time.monotonic() - started > 1.0:
                break
        expect("the upstream server runs", pids, pids)
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
    took = time.monotonic() - started
    answer = result["r"]
    expect("the call on a killed upstream is an error", answer.is_error, text(answer))
    expect("naming the server", "`everything`" in text(answer), text(answer))
    expect("well before the operation's 20 s", took < 12, took)
    result2 = await client.call_tool("everything__echo", {"message": "again"})
    expect("the next call starts it again", not result2.is_error and text(result2) == "Echo: again", text(result2))
    expect("a new process", set(upstream_pids(server_pid)).isdisjoint(pids), (pids, upstream_pids(server_pid)))


async def check_unable(client: Client, options: list[str]) -> None:
    result = await client.call_tool("everything__echo", {"message": "nobody to ask"})
    expect("a client that cannot be asked is refused", result.is_error, text(result))
    for option in options:
        expect(f"the refusal names {option}", option in text(result), text(result))


async def stdio(workspace: Path, command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k.startswith("CY_TOOLS_")}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(workspace))
    for mode in ("legacy", "auto"):
        try:
            async with Client(params, mode=mode, read_timeout_seconds=60, elicitation_callback=on_elicit) as client:
                await check_calls(client, workspace)
                if mode == "legacy":
                    await check_killed(client, None)
            async with Client(params, mode=mode, read_timeout_seconds=60) as client:
                await check_unable(client, ["--approve none"])
        except AssertionError as err:
            sys.exit(f"FAILED stdio: {mode} mode: {err}")
        print(f"stdio: {mode} mode: listed, called through, bad arguments, approval asked and declined, refused unasked")
    print("stdio: an upstream killed mid-call answered an error and was started again")


def connect(url: str, mode: str, elicit: bool) -> Client:
    return Client(
        streamable_http_client(url, http_client=http_client()),
        mode=mode,
        read_timeout_seconds=60,
        elicitation_callback=on_elicit if elicit else None,
    )


async def http(stateless: str, sessions: str, sessions_pid: int) -> None:
    try:
        # Stateless: a 2025-11-25 client cannot be asked, and is told its ways out.
        async with connect(stateless, "legacy", True) as client:
            await check_list(client)
            ASKED.clear()
            await check_unable(client, ["--http-sessions", "--approve none", "trust_annotations", "`everything`"])
            expect("nobody was asked", ASKED == [], ASKED)
            result = await client.call_tool("everything__get-sum", {"a": 2, "b": 3, "c": 4})
            expect("stateless: an unknown field named", result.is_error and "`c`" in text(result), text(result))
        # A 2026-07-28 client is asked in the call's answer, stateless or not.
        async with connect(stateless, "auto", True) as client:
            await check_calls(client, None)
        print("http: stateless: a 2025-11-25 client refused with its options, a 2026-07-28 one asked")
        async with connect(sessions, "legacy", True) as client:
            await check_calls(client, None)
            await check_killed(client, sessions_pid)
        async with connect(sessions, "legacy", False) as client:
            await check_unable(client, ["--approve none"])
        print("http: session-bearing: called through, asked and declined, an upstream killed mid-call answered and restarted")
    except AssertionError as err:
        sys.exit(f"FAILED http: {err}")


def listener() -> tuple[anyio.Event, Any]:
    """An event set when the client is told the tools changed, and the handler that sets it."""
    told = anyio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            told.set()

    return told, on_message


async def names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


async def check_change(client: Client, told: anyio.Event, expect_told: bool) -> None:
    """`fault__change` changes the upstream's list (`read` gone, `added` new): the gateway's
    client is told where it can be, and its next `tools/list` shows the new list."""
    before = await names(client)
    expect("the upstream's tools are listed", {"fault__read", "fault__change"} <= before and "fault__added" not in before, sorted(before))
    result = await client.call_tool("fault__change", {})
    expect("the change runs", not result.is_error and text(result) == "changed", text(result))
    if expect_told:
        with anyio.fail_after(10):
            await told.wait()
    after = before
    for _ in range(100):
        after = await names(client)
        if "fault__added" in after:
            break
        await anyio.sleep(0.1)
    expect("the new list is served", "fault__added" in after and "fault__read" not in after and "read_file" in after, sorted(after))
    if not expect_told:
        expect("a client that cannot be told is not", not told.is_set(), "told")
    result = await client.call_tool("fault__added", {})
    expect("the new tool answers", not result.is_error and text(result) == "added answers", text(result))
    try:
        result = await client.call_tool("fault__read", {"path": "x"})
        expect("a tool gone is refused", result.is_error, text(result))
    except Exception as err:  # the SDK raises the JSON-RPC error of an unknown tool
        expect("a tool gone is unknown, naming the valid ones", "unknown tool `fault__read`" in str(err) and "fault__added" in str(err), err)


async def changes_stdio(workspace: Path, command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k.startswith("CY_TOOLS_")}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(workspace))
    try:
        told, on_message = listener()
        async with Client(params, mode="legacy", read_timeout_seconds=60, message_handler=on_message) as client:
            await check_change(client, told, True)
        # 2026-07-28 has no notifications of its own: its next list is the new one.
        told, on_message = listener()
        async with Client(params, mode="auto", read_timeout_seconds=60, message_handler=on_message) as client:
            await check_change(client, told, False)
    except AssertionError as err:
        sys.exit(f"FAILED changes over stdio: {err}")
    print("changes: stdio: a 2025-11-25 client told, a 2026-07-28 one sees the new list")


async def changes_http(stateless: str, sessions: str) -> None:
    try:
        told, on_message = listener()
        async with Client(streamable_http_client(sessions, http_client=http_client()), mode="legacy", read_timeout_seconds=60, message_handler=on_message) as client:
            await check_change(client, told, True)
        told, on_message = listener()
        async with Client(streamable_http_client(stateless, http_client=http_client()), mode="legacy", read_timeout_seconds=60, message_handler=on_message) as client:
            await check_change(client, told, False)
    except AssertionError as err:
        sys.exit(f"FAILED changes over HTTP: {err}")
    print("changes: http: a session-bearing client told, a stateless one sees the new list")


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[1] == "stdio":
        anyio.run(stdio, Path(sys.argv[2]), sys.argv[3:])
    elif len(sys.argv) == 5 and sys.argv[1] == "http":
        anyio.run(http, sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) >= 5 and sys.argv[1:3] == ["changes", "stdio"]:
        anyio.run(changes_stdio, Path(sys.argv[3]), sys.argv[4:])
    elif len(sys.argv) == 5 and sys.argv[1:3] == ["changes", "http"]:
        anyio.run(changes_http, sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
