#!/usr/bin/env python3
"""Checks a three-tool MCP stdio server of the application build comparison (BENCHMARKS.md).

Usage: check_server.py COMMAND [ARG...]

Starts COMMAND, speaks MCP to it over stdin and stdout as a client would (`initialize`,
`notifications/initialized`, `tools/list`, then `tools/call` of each tool), checks every answer,
closes stdin and checks that the server exits. Prints one line per check and exits 1 at the
first wrong answer. Standard library only.

The server must offer exactly `add(a, b)`, `greet(name, excited?)` (which numbers its greetings:
the server's state) and `word_count(path)` (a structured `{"words", "lines"}` result).
"""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading

TIMEOUT = 10.0


def fail(message):
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


def check(condition, what, got=None):
    if not condition:
        fail(f"{what}; got: {json.dumps(got)}" if got is not None else what)
    print(f"ok: {what}", flush=True)


class Client:
    def __init__(self, command):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, request_id, method, params=None, allow_error=False):
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT)
            except queue.Empty:
                fail(f"no answer to `{method}` within {TIMEOUT}s")
            if line is None:
                fail(f"the server closed stdout before answering `{method}`")
            answer = json.loads(line)
            # Notifications and server requests may come first: skip what is not our answer.
            if answer.get("id") == request_id and "method" not in answer:
                if "error" in answer:
                    if allow_error:
                        return {"jsonrpc_error": answer["error"]}
                    fail(f"`{method}` answered an error: {json.dumps(answer['error'])}")
                return answer["result"]

    def call(self, request_id, name, arguments, allow_error=False):
        params = {"name": name, "arguments": arguments}
        return self.request(request_id, "tools/call", params, allow_error)


def text_of(result):
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    client = Client(sys.argv[1:])

    init = client.request(
        1,
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "check_server", "version": "0"},
        },
    )
    check("tools" in init.get("capabilities", {}), "initialize: the server offers tools", init)
    print(f"    server {init.get('serverInfo')}, protocol {init.get('protocolVersion')}")
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    listed = client.request(2, "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}
    check(sorted(tools) == ["add", "greet", "word_count"], "tools/list: add, greet, word_count", sorted(tools))
    schema = tools["greet"]["inputSchema"]
    check(
        set(schema.get("properties", {})) == {"name", "excited"} and schema.get("required") == ["name"],
        "greet: `name` required, `excited` optional",
        schema,
    )
    check(
        set(tools["add"]["inputSchema"].get("properties", {})) == {"a", "b"},
        "add: takes `a` and `b`",
        tools["add"]["inputSchema"],
    )
    output = tools["word_count"].get("outputSchema")
    print(f"    word_count outputSchema: {json.dumps(output) if output else 'none'}")

    added = client.call(10, "add", {"a": 2, "b": 40})
    check(not added.get("isError") and text_of(added) == "42", "add(2, 40) = 42", added)

    greeted = client.call(11, "greet", {"name": "Ada"})
    check(text_of(greeted) == "Hello, Ada! (greeting #1)", "greet(Ada) is greeting #1", greeted)
    greeted = client.call(12, "greet", {"name": "Bob", "excited": True})
    check(
        text_of(greeted) == "Hello, Bob!!! (greeting #2)",
        "greet(Bob, excited) is greeting #2: the state persists",
        greeted,
    )

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("one two three\nfour five\n\nsix\n")
        path = f.name
    try:
        counted = client.call(13, "word_count", {"path": path})
        check(
            not counted.get("isError")
            and counted.get("structuredContent") == {"words": 6, "lines": 4},
            "word_count: structuredContent {words: 6, lines: 4}",
            counted,
        )
        check(
            json.loads(text_of(counted)) == {"words": 6, "lines": 4},
            "word_count: the same JSON as text",
            counted,
        )
    finally:
        os.unlink(path)
    missing = client.call(14, "word_count", {"path": path})
    check(missing.get("isError") is True, "word_count of a missing file is an error result", missing)

    # A framework may refuse wrong arguments with an error result or a JSON-RPC error.
    wrong = client.call(15, "add", {"a": "two", "b": 40}, allow_error=True)
    check(
        wrong.get("isError") is True or "jsonrpc_error" in wrong,
        "add with a string argument is refused",
        wrong,
    )
    how = "a JSON-RPC error" if "jsonrpc_error" in wrong else "an error result"
    print(f"    refused with {how}: {json.dumps(wrong)[:200]}")

    client.proc.stdin.close()
    try:
        code = client.proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        client.proc.kill()
        fail(f"the server did not exit within {TIMEOUT}s of stdin closing")
    check(code == 0, "the server exits 0 when stdin closes", code)
    print("all checks passed")


if __name__ == "__main__":
    main()
