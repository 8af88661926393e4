"""Progress and approval of `cy-tools mcp`, driven by the official Python MCP client.

Usage: mcp_progress_approval_check.py {progress|approval|state|nested} MODES WORKSPACE COMMAND [ARG...]

COMMAND [ARG...] starts the server over stdio with WORKSPACE as its `--root`; MODES is a
comma-separated list of the SDK's connection modes to check (`legacy`: the `initialize`
handshake, protocol 2025-11-25; `auto`: protocol 2026-07-28).

* `progress` expects `--tools execute_code,search_text`: a call with a progress callback gets
  increasing values before its result and none after; a call without one works the same.
* `approval` expects `--tools read_file,write_file --approve destructive`: a `write_file` the
  elicitation callback accepts writes its file; one it declines answers an error saying so and
  leaves the disk as it was; a client with no elicitation callback is refused with a message
  naming `--approve none`; `read_file` (read-only) never asks. In `auto` mode the question
  comes back as an `input_required` result with a signed `requestState`, which the SDK answers.
* `state` (`auto` mode, same server) drives those rounds by hand: a changed `requestState` is
  refused, so is one sent with other arguments, the right one runs the call once, and the same
  one sent again is refused as used; a refused call writes nothing.
* `nested` expects `--tools execute_code,write_file --code-mode --approve destructive`: the
  `write_file` that code run by an approved `execute_code` makes goes through approval too.
  With the `initialize` handshake the client is asked again (accepted: written); on 2026-07-28,
  which cannot ask in the middle of a call, it is refused (nothing written), never approved on
  the strength of `execute_code`'s approval.

Exits non-zero, naming the check, on any mismatch.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters, types


def expect(what: str, ok: bool, detail: Any = "") -> None:
    if not ok:
        raise AssertionError(f"{what}: {detail}")


def text(result: Any) -> str:
    """The text the model reads, without the text copy of a run's structured content."""
    blocks = [block.text for block in result.content]
    if result.structured_content is not None and len(blocks) > 1:
        blocks = blocks[:-1]
    return "\n".join(blocks)


async def check_progress(params: StdioServerParameters, mode: str, workspace: Path) -> None:
    async with Client(params, mode=mode, read_timeout_seconds=60) as client:
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        code = "import time\nfor i in range(8):\n    print(i, flush=True)\n    time.sleep(0.3)\n"
        result = await client.call_tool("execute_code", {"code": code}, progress_callback=on_progress)
        at_result = list(seen)
        expect("execute_code result", not result.is_error and text(result) == "\n".join(map(str, range(8))), text(result))
        expect("execute_code: at least two progress reports", len(at_result) >= 2, at_result)
        values = [p for p, _, _ in at_result]
        expect("execute_code: progress increases", all(a < b for a, b in zip(values, values[1:])), values)
        expect("execute_code: counts output lines", all(1 <= v <= 8 for v in values), values)
        expect(
            "execute_code: messages",
            all(m == f"{int(p)} line{'' if p == 1 else 's'} of output so far" for p, _, m in at_result),
            at_result,
        )
        await anyio.sleep(0.6)
        expect("no progress after the result", seen == at_result, seen[len(at_result):])

        # Without a callback the client sends no token, and the call is the same.
        result = await client.call_tool("execute_code", {"code": code})
        expect("execute_code without a callback", not result.is_error, text(result))

        # search_text counts files.
        for i in range(3000):
            (workspace / f"f{i:04}.txt").write_text("needle\n" if i == 2999 else "hay\n" * 200)
        seen.clear()
        result = await client.call_tool(
            "search_text", {"pattern": "needle", "max_results": 5}, progress_callback=on_progress
        )
        expect("search_text result", text(result) == "f2999.txt:1: needle", text(result))
        values = [p for p, _, _ in seen]
        expect("search_text: progress increases", all(a < b for a, b in zip(values, values[1:])), values)
        # The last count is reported before the result, unless a report came just before it.
        expect("search_text: reports the files searched", 1 <= len(values) and values[-1] <= 3000, values)
        expect("search_text: messages", all(m == f"{int(p)} file{'' if p == 1 else 's'} searched" for p, _, m in seen), seen)
    print(f"progress: {mode} mode: {len(at_result)} reports from execute_code, {len(seen)} from search_text")


async def check_approval(params: StdioServerParameters, mode: str, workspace: Path) -> None:
    asked: list[str] = []

    def answering(action: str) -> Any:
        async def callback(context: Any, request: types.ElicitRequestParams) -> types.ElicitResult:
            asked.append(request.message)
            return types.ElicitResult(action=action, content={} if action == "accept" else None)

        return callback

    (workspace / "notes.txt").write_text("alpha\n")
    target = workspace / f"{mode}-accepted.txt"
    async with Client(params, mode=mode, read_timeout_seconds=60, elicitation_callback=answering("accept")) as client:
        result = await client.call_tool("read_file", {"path": "notes.txt"})
        expect("read_file runs without asking", not result.is_error and asked == [], (text(result), asked))
        result = await client.call_tool("write_file", {"path": target.name, "content": "approved\n"})
        expect("accepted write_file runs", not result.is_error, text(result))
        expect("the question names the call", len(asked) == 1 and asked[0].startswith("Allow `write_file`"), asked)
        expect("accepted write_file wrote", target.read_text() == "approved\n", target)

    asked.clear()
    before = sorted(p.name for p in workspace.iterdir())
    (workspace / "notes.txt").write_text("alpha\n")
    async with Client(params, mode=mode, read_timeout_seconds=60, elicitation_callback=answering("decline")) as client:
        result = await client.call_tool("write_file", {"path": "notes.txt", "content": "overwritten\n"})
        expect("declined write_file is an error", result.is_error, text(result))
        expect("declined: says so", "declined it" in text(result) and "nothing was changed" in text(result), text(result))
        expect("declined: asked once", len(asked) == 1, asked)
    expect("declined: nothing changed on disk", (workspace / "notes.txt").read_text() == "alpha\n", "notes.txt changed")
    expect("declined: no file appeared", sorted(p.name for p in workspace.iterdir()) == before, before)

    async with Client(params, mode=mode, read_timeout_seconds=60) as client:
        result = await client.call_tool("write_file", {"path": "notes.txt", "content": "overwritten\n"})
        expect("a client that cannot elicit is refused", result.is_error, text(result))
        expect("the refusal names `--approve none`", "--approve none" in text(result), text(result))
    expect("refused: nothing changed on disk", (workspace / "notes.txt").read_text() == "alpha\n", "notes.txt changed")
    print(f"approval: {mode} mode: accepted, declined and unable clients all answered as expected")


async def check_state(params: StdioServerParameters, mode: str, workspace: Path) -> None:
    async with Client(params, mode=mode, read_timeout_seconds=60, elicitation_callback=lambda *_: None) as client:
        session = client.session
        args = {"path": "signed.txt", "content": "approved\n"}
        first = await session.call_tool("write_file", args, allow_input_required=True)
        expect("the first round asks", isinstance(first, types.InputRequiredResult), first)
        expect("it asks one question, `approve`", list(first.input_requests or {}) == ["approve"], first.input_requests)
        state = first.request_state
        expect("it carries a signed state", isinstance(state, str) and state.startswith("cy1."), state)
        yes = {"approve": types.ElicitResult(action="accept", content={})}
        target = workspace / "signed.txt"

        async def again(arguments: dict[str, Any], request_state: str) -> types.CallToolResult:
            result = await session.call_tool(
                "write_file", arguments, input_responses=yes, request_state=request_state, allow_input_required=True
            )
            expect("a second round is a result", isinstance(result, types.CallToolResult), result)
            return result

        body, tag = state.rsplit(".", 1)
        forged = f"{body}.{'A' if tag[0] != 'A' else 'B'}{tag[1:]}"
        result = await again(args, forged)
        expect("a forged state is refused", result.is_error and "not one this server signed" in text(result), text(result))
        expect("forged: nothing written", not target.exists(), target)

        result = await again({"path": "signed.txt", "content": "something else\n"}, state)
        expect("a state for other arguments is refused", result.is_error and "issued for another call" in text(result), text(result))
        expect("other arguments: nothing written", not target.exists(), target)

        result = await again(args, state)
        expect("the signed state runs the call", not result.is_error, text(result))
        expect("it wrote", target.read_text() == "approved\n", target)

        target.unlink()
        result = await again(args, state)
        expect("a replayed state is refused", result.is_error and "already used" in text(result), text(result))
        expect("replayed: nothing written", not target.exists(), target)
    print(f"state: {mode} mode: forged, misbound and replayed states refused, the signed one ran once")


async def check_nested(params: StdioServerParameters, mode: str, workspace: Path) -> None:
    asked: list[str] = []

    async def accept(context: Any, request: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(request.message)
        return types.ElicitResult(action="accept", content={})

    target = workspace / f"nested-{mode}.txt"
    code = (
        "import cy_sdk\n"
        "try:\n"
        f"    print(cy_sdk.tools.write_file({target.name!r}, content='from code'))\n"
        "except cy_sdk.ToolError as err:\n"
        "    print('refused:', err)\n"
    )
    async with Client(params, mode=mode, read_timeout_seconds=60, elicitation_callback=accept) as client:
        result = await client.call_tool("execute_code", {"code": code})
        expect("execute_code ran", not result.is_error, text(result))
        expect("execute_code was asked about", asked[:1] and asked[0].startswith("Allow `execute_code`"), asked)
        if client.protocol_version >= "2026-07-28":
            expect("the nested write is refused", text(result).startswith("refused: the call to `write_file` was not run"), text(result))
            expect("saying why", "cannot be asked in the middle of a call" in text(result), text(result))
            expect("nothing written", not target.exists(), target)
            expect("asked once", len(asked) == 1, asked)
        else:
            expect("the nested write is asked about", len(asked) == 2 and asked[1].startswith("Allow `write_file`"), asked)
            expect("and runs", target.read_text() == "from code", text(result))
    print(f"nested: {mode} mode: the code's write_file went through approval")


async def run(check: str, modes: list[str], workspace: Path, command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k.startswith("CY_TOOLS_")}
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(workspace))
    for mode in modes:
        try:
            checks = {"progress": check_progress, "approval": check_approval, "state": check_state, "nested": check_nested}
            await checks[check](params, mode, workspace)
        except AssertionError as err:
            sys.exit(f"FAILED {check}: {mode} mode: {err}")


def main() -> None:
    if len(sys.argv) < 5 or sys.argv[1] not in ("progress", "approval", "state", "nested"):
        sys.exit(__doc__)
    anyio.run(run, sys.argv[1], sys.argv[2].split(","), Path(sys.argv[3]), sys.argv[4:])


if __name__ == "__main__":
    main()
