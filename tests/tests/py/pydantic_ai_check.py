"""pydantic-ai as an MCP client of `cy-tools mcp`: a command that ran and failed does not end a run.

Usage: pydantic_ai_check.py WORKSPACE SERVER_COMMAND [SERVER_ARGS...]

The agent runs on pydantic-ai's `TestModel`, its offline test model: no model provider and no
network. It calls each tool it is given once, with arguments generated from the tool's schema
(`{"command": "a"}` for `terminal`, `{"code": "a"}` for `execute_code`), and calls a tool again
when its result was a tool error (pydantic-ai turns `isError` into a retry); a second error in a
row ends the run with "exceeded max retries". So:

* `terminal` runs `a`, which the shell cannot find (exit code 127), and `execute_code` runs `a`,
  a `NameError` (exit code 1): both ran, so both are normal results, the run ends normally, and
  the model saw each exit code in the structured content (pydantic-ai prefers it).
* `read_file` of `a`, which does not exist, could not do its job: a tool error, retried, and the
  run ends with "exceeded max retries". The check above could fail.
"""

from __future__ import annotations

import sys

import anyio
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import RetryPromptPart, ToolReturnPart
from pydantic_ai.models.test import TestModel


def expect(what: str, ok: bool, detail: object) -> None:
    if not ok:
        raise AssertionError(f"{what}: {detail!r}")


def toolset(workspace: str, command: list[str]) -> MCPToolset:
    return MCPToolset(StdioTransport(command[0], command[1:], cwd=workspace))


async def main(workspace: str, command: list[str]) -> None:
    # TestModel: offline, no provider; it calls the named tools with schema-generated arguments.
    agent = Agent(TestModel(call_tools=["terminal", "execute_code"]), toolsets=[toolset(workspace, command)])
    result = await agent.run("run a command and some code")
    parts = [part for message in result.all_messages() for part in message.parts]
    retries = [part for part in parts if isinstance(part, RetryPromptPart)]
    expect("no retry: a command that ran is not a tool error", retries == [], retries)
    returns = {part.tool_name: part.content for part in parts if isinstance(part, ToolReturnPart)}
    terminal = returns.get("terminal")
    expect("terminal answered its exit code", isinstance(terminal, dict) and terminal["exit_code"] == 127, terminal)
    expect("terminal's stderr says why", "not found" in terminal["stderr"], terminal)
    code = returns.get("execute_code")
    expect("execute_code answered its exit code", isinstance(code, dict) and code["exit_code"] == 1, code)
    expect(
        "execute_code's traceback names the code, not a host path",
        'File "<code>", line 1' in code["stderr"] and "NameError: name 'a' is not defined" in code["stderr"],
        code,
    )
    expect("execute_code's traceback shows no host path", workspace not in code["stderr"], code)
    print(f"ran: terminal exit {terminal['exit_code']}, execute_code exit {code['exit_code']}, no retries")

    # A tool that could not do its job is still an error, which pydantic-ai retries and gives up on.
    agent = Agent(TestModel(call_tools=["read_file"]), toolsets=[toolset(workspace, command)])
    try:
        await agent.run("read a file")
    except UnexpectedModelBehavior as err:
        expect("a real tool error exceeds the retries", "exceeded max retries" in str(err), str(err))
        print(f"read_file of a missing file: {err}")
    else:
        raise AssertionError("read_file of a missing file did not end the run")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2:])
