"""Drive `cy-tools mcp --http` servers with the official Python MCP SDK over streamable HTTP.

Usage: mcp_http_check.py CHECK WORKSPACE URL [URL...]

The bearer token comes from `CY_TOOLS_MCP_TOKEN`, the variable the servers were started with.
WORKSPACE is the servers' `--root`. Checks:

* `app URL`: an application's server serving `read_file`, `record_clip`, `word_lengths` and
  `word_stats`: the checks of `mcp_client_check.py` (list, calls, an invalid call, an error result,
  an unknown tool, audio and resources, log messages at the level asked for), then
  what `tools/list` carries (titles, annotations, `outputSchema`, and on 2026-07-28 `ttlMs` and
  `cacheScope`), in both the SDK's default negotiation and the `initialize` handshake.
* `token URL`: no token and a wrong token are answered `401`, through the client and raw.
* `disconnect URL`: a client that goes away while its `terminal` call runs: the command is
  killed (its pid vanishes).
* `replicas URL URL`: one client whose requests alternate between two servers over the same
  workspace (a load balancer without affinity), in both negotiations: a file written through
  one is read through the other.
* `approval URL URL`: two servers asking before destructive calls (the default over HTTP) and
  sharing `CY_TOOLS_MCP_STATE_KEY`, one client alternating between them: on 2026-07-28 a
  `write_file` its user accepts is asked by one server and run by the other, one declined
  writes nothing; with the `initialize` handshake, which has no way to ask a stateless server's
  client, it is refused with a message naming `--approve none`.
* `replay URL URL`: two servers sharing `CY_TOOLS_MCP_STATE_KEY` and one stored session
  (`--store`), driven by hand on 2026-07-28: a `write_file` asked about by the first runs when
  its answer goes to the second; the same answer sent again is refused, by the second (which
  spent it) and by the first (which sees it spent in the shared log); nothing is written twice.
* `progress URL`: an `execute_code` call with a progress callback gets increasing values
  before its result, in both negotiations.

Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parent))
from mcp_catalog_check import check_catalog  # noqa: E402
from mcp_client_check import NOTES, check_app, check_clip, expect_equal, log_received, texts  # noqa: E402

TOKEN = os.environ.get("CY_TOOLS_MCP_TOKEN", "")
MODES = ("auto", "legacy")


def http_client(token: str | None = TOKEN, transport: httpx2.AsyncBaseTransport | None = None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx2.AsyncClient(headers=headers, transport=transport, timeout=60)


def connect(url: str, mode: str, **kwargs: Any) -> Client:
    return Client(
        streamable_http_client(url, http_client=http_client(**kwargs)),
        mode=mode,
        read_timeout_seconds=60,
        logging_callback=log_received,
    )


async def check_listing(client: Client, modern: bool) -> None:
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    expect_equal("read_file title", tools["read_file"].title, "Read file")
    expect_equal("word_stats title", tools["word_stats"].title, "Word statistics")
    schema = tools["word_stats"].output_schema
    expect_equal("word_stats outputSchema type", schema and schema.get("type"), "object")
    expect_equal(
        "word_stats outputSchema properties",
        sorted(schema["properties"]) if schema else None,
        ["distinct", "most_common", "words"],
    )
    expect_equal("read_file outputSchema", tools["read_file"].output_schema, None)
    if modern:
        # Five minutes; `private`, since only token holders may see the list.
        expect_equal("tools/list ttlMs", listed.ttl_ms, 300000)
        expect_equal("tools/list cacheScope", listed.cache_scope, "private")


async def check_app_over_http(workspace: Path, url: str) -> None:
    (workspace / "notes.txt").write_text(NOTES)
    for mode in MODES:
        failure = None
        async with connect(url, mode) as client:
            protocol = client.protocol_version
            try:
                info = client.server_info
                expect_equal("server name", info.name if info else None, "cy-tools")
                await check_app(client)
                await check_clip(client, mode, stateless=True)
                # No update can reach a client between stateless requests.
                await check_catalog(client, subscriptions=False)
                await check_listing(client, modern=protocol >= "2026-07-28")
            except AssertionError as err:
                failure = f"app over HTTP: {mode} mode, protocol {protocol}: {err}"
        if failure:
            sys.exit(f"FAILED {failure}")
        print(f"app over HTTP: {mode} mode, protocol {protocol}: all checks passed")


async def check_token(url: str) -> None:
    want = (
        "missing or wrong bearer token; send `Authorization: Bearer <token>` with the token "
        "the server was started with (its `CY_TOOLS_MCP_TOKEN`)"
    )
    for what, token in (("no token", None), ("a wrong token", "not-the-token-at-all")):
        for mode in MODES:
            try:
                async with connect(url, mode, token=token):
                    pass
            except BaseException as err:  # the SDK raises it inside task groups
                errors = flatten(err)
                messages = [e.message for e in errors if isinstance(e, MCPError)]
                if want not in messages:
                    sys.exit(f"FAILED token: {what}, {mode} mode: got {errors!r}, want an MCPError {want!r}")
            else:
                sys.exit(f"FAILED token: {what}, {mode} mode: the client connected")
        async with http_client(token=token) as raw:
            response = await raw.post(
                url,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Accept": "application/json, text/event-stream"},
            )
        expect_equal(f"{what}: status", response.status_code, 401)
        expect_equal(f"{what}: WWW-Authenticate", response.headers.get("www-authenticate"), 'Bearer realm="cy-tools"')
        expect_equal(f"{what}: body", response.json()["error"]["message"], want)
    print("token: no token and a wrong token are answered 401 (client and raw)")


def flatten(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for inner in err.exceptions for leaf in flatten(inner)]
    return [err]


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purpose: it runs nothing.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


async def wait_until(what: str, probe: Any, seconds: float = 10) -> Any:
    with anyio.move_on_after(seconds):
        while True:
            value = probe()
            if value:
                return value
            await anyio.sleep(0.02)
    sys.exit(f"FAILED timed out waiting for {what}")


async def check_disconnect(workspace: Path, url: str) -> None:
    for mode in MODES:
        pid_file = workspace / f"call-{mode}.pid"

        def pid() -> int | None:
            text = pid_file.read_text() if pid_file.exists() else ""
            return int(text) if text.endswith("\n") else None

        async with connect(url, mode) as client:
            async with anyio.create_task_group() as group:
                command = f"echo $$ > {pid_file.name}; exec sleep 300"
                group.start_soon(client.call_tool, "terminal", {"command": command})
                started = await wait_until("the command to start", pid)
                if not running(started):
                    sys.exit(f"FAILED disconnect: {mode} mode: the command is not running")
                # Cancelling the call, then leaving the client, closes its connections.
                group.cancel_scope.cancel()
        await wait_until(f"the command {started} to be killed after the client left", lambda: not running(started))
        print(f"disconnect: {mode} mode: the client went away mid-call; its command was killed")


class RoundRobin(httpx2.AsyncBaseTransport):
    """A load balancer without affinity, in the client: each request goes to the next server."""

    def __init__(self, ports: list[int]) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.ports = ports
        self.counts = [0] * len(ports)
        self.turn = 0
        # Which server each `tools/call` went to, in order.
        self.calls: list[int] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        index = self.turn
        self.turn = (self.turn + 1) % len(self.ports)
        self.counts[index] += 1
        if b'"tools/call"' in request.content:
            self.calls.append(index)
        request.url = request.url.copy_with(port=self.ports[index])
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def check_replicas(workspace: Path, urls: list[str]) -> None:
    ports = [httpx2.URL(url).port for url in urls]
    for mode in MODES:
        balancer = RoundRobin(ports)
        failure = None
        async with connect(urls[0], mode, transport=balancer) as client:
            protocol = client.protocol_version
            try:
                for round in range(3):
                    text = f"written in round {round} ({mode})\n"
                    result = await client.call_tool("write_file", {"path": f"r-{mode}.txt", "content": text})
                    expect_equal(f"write {round} is_error", result.is_error, False)
                    result = await client.call_tool("read_file", {"path": f"r-{mode}.txt"})
                    expect_equal(f"read {round}", texts(result), [f"     1\t{text.rstrip()}"])
                    listed = await client.list_tools()
                    expect_equal("tools", [t.name for t in listed.tools], ["read_file", "terminal", "write_file"])
                if min(balancer.counts) < 3:
                    raise AssertionError(f"requests per server: {balancer.counts}, want both used")
            except AssertionError as err:
                failure = f"replicas: {mode} mode, protocol {protocol}: {err}"
        if failure:
            sys.exit(f"FAILED {failure}")
        print(f"replicas: {mode} mode, protocol {protocol}: requests per server {balancer.counts}, all answered")


async def check_approval_replicas(workspace: Path, urls: list[str]) -> None:
    from mcp import types

    ports = [httpx2.URL(url).port for url in urls]
    for mode in MODES:
        for answer in ("accept", "decline"):
            balancer = RoundRobin(ports)
            asked: list[str] = []

            async def on_elicit(context: Any, request: Any) -> Any:
                asked.append(request.message)
                return types.ElicitResult(action=answer, content={} if answer == "accept" else None)

            target = workspace / f"approved-{mode}-{answer}.txt"
            client = Client(
                streamable_http_client(urls[0], http_client=http_client(transport=balancer)),
                mode=mode,
                read_timeout_seconds=60,
                elicitation_callback=on_elicit,
            )
            failure = None
            async with client:
                protocol = client.protocol_version
                try:
                    result = await client.call_tool("write_file", {"path": target.name, "content": "yes\n"})
                    if protocol >= "2026-07-28":
                        expect_equal("asked once", len(asked), 1)
                        expect_equal("the question names the call", asked[0].startswith("Allow `write_file`"), True)
                        # Asked by one server, answered to the other.
                        expect_equal("the two rounds went to different servers", sorted(balancer.calls), [0, 1])
                        if answer == "accept":
                            expect_equal("accepted: is_error", result.is_error, False)
                            expect_equal("accepted: written", target.read_text(), "yes\n")
                        else:
                            expect_equal("declined: is_error", result.is_error, True)
                            expect_equal("declined: says so", "declined it" in texts(result)[0], True)
                            expect_equal("declined: nothing written", target.exists(), False)
                    else:
                        expect_equal("legacy: refused", result.is_error, True)
                        expect_equal("legacy: names `--approve none`", "--approve none" in texts(result)[0], True)
                        expect_equal("legacy: nothing written", target.exists(), False)
                except AssertionError as err:
                    failure = f"approval: {mode} mode, protocol {protocol}, {answer}: {err}"
            if failure:
                sys.exit(f"FAILED {failure}")
            print(f"approval: {mode} mode, protocol {protocol}, {answer}: requests per server {balancer.counts}, answered as expected")


async def check_replay_across_replicas(workspace: Path, urls: list[str]) -> None:
    from mcp import types

    async def never(context: Any, request: Any) -> Any:
        raise AssertionError("the rounds are driven by hand")

    def client(url: str) -> Client:
        return Client(
            streamable_http_client(url, http_client=http_client()),
            mode="auto",
            read_timeout_seconds=60,
            elicitation_callback=never,
        )

    args = {"path": "once.txt", "content": "once\n"}
    yes = {"approve": types.ElicitResult(action="accept", content={})}
    target = workspace / "once.txt"
    async with client(urls[0]) as first, client(urls[1]) as second:
        asked = await first.session.call_tool("write_file", args, allow_input_required=True)
        try:
            expect_equal("the first server asks", isinstance(asked, types.InputRequiredResult), True)
            state = asked.request_state

            async def answer(to: Client) -> Any:
                return await to.session.call_tool(
                    "write_file", args, input_responses=yes, request_state=state, allow_input_required=True
                )

            result = await answer(second)
            expect_equal("the second server runs it", (result.is_error, target.read_text()), (False, "once\n"))
            target.unlink()
            for who, to in (("the second", second), ("the first", first)):
                result = await answer(to)
                expect_equal(f"{who} server refuses it again", result.is_error, True)
                expect_equal(f"{who}: as used", "already used" in texts(result)[0], True)
                expect_equal(f"{who}: nothing written", target.exists(), False)
        except AssertionError as err:
            sys.exit(f"FAILED replay: {err}")
    print("replay: an answer spent on one replica is refused by both")


async def check_progress(url: str) -> None:
    for mode in MODES:
        seen: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)

        async with connect(url, mode) as client:
            protocol = client.protocol_version
            code = "import time\nfor i in range(6):\n    print(i, flush=True)\n    time.sleep(0.3)\n"
            result = await client.call_tool("execute_code", {"code": code}, progress_callback=on_progress)
            at_result = list(seen)
            await anyio.sleep(0.5)
            try:
                expect_equal("execute_code is_error", result.is_error, False)
                expect_equal("at least two reports", len(at_result) >= 2, True)
                expect_equal("increasing", all(a < b for a, b in zip(at_result, at_result[1:])), True)
                expect_equal("none after the result", seen, at_result)
            except AssertionError as err:
                sys.exit(f"FAILED progress: {mode} mode, protocol {protocol}: {err} (reports {seen})")
        print(f"progress: {mode} mode, protocol {protocol}: {len(at_result)} reports, increasing, none after the result")


async def run(check: str, workspace: Path, urls: list[str]) -> None:
    if check == "app":
        await check_app_over_http(workspace, urls[0])
    elif check == "token":
        await check_token(urls[0])
    elif check == "disconnect":
        await check_disconnect(workspace, urls[0])
    elif check == "replicas":
        await check_replicas(workspace, urls)
    elif check == "approval":
        await check_approval_replicas(workspace, urls)
    elif check == "replay":
        await check_replay_across_replicas(workspace, urls)
    elif check == "progress":
        await check_progress(urls[0])


def main() -> None:
    checks = {"app": 1, "token": 1, "disconnect": 1, "replicas": 2, "approval": 2, "replay": 2, "progress": 1}
    if len(sys.argv) < 4 or checks.get(sys.argv[1]) != len(sys.argv) - 3:
        sys.exit(__doc__)
    anyio.run(run, sys.argv[1], Path(sys.argv[2]), sys.argv[3:])


if __name__ == "__main__":
    main()
