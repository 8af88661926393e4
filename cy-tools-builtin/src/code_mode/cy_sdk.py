"""cy_sdk: call the session's tools from code run by `execute_code` (code mode).

    import cy_sdk
    text = cy_sdk.call("read_file", path="a.txt")   # text, or parsed JSON for structured results
    cy_sdk.tools()                                    # names of the tools that may be called

A failed call raises `cy_sdk.ToolError`; `str(err)` is the message the model would have seen.
Standard library only. The channel lives as long as the execution that opened it.
"""

import json
import os
import socket

__all__ = ["ToolError", "call", "tools"]


class ToolError(Exception):
    """A tool call failed or was refused; `str(err)` is the model-facing message."""

    def __init__(self, message, tool=None):
        super().__init__(message)
        self.message = message
        self.tool = tool


_connection = None  # (path, socket, reader)


def _close():
    global _connection
    if _connection is not None:
        try:
            _connection[1].close()
        except OSError:
            pass
        _connection = None


def _connect():
    global _connection
    path = os.environ.get("CY_SDK_SOCKET")
    if not path or not os.environ.get("CY_SDK_TOKEN"):
        raise ToolError(
            "code mode is not enabled for this run: `CY_SDK_SOCKET` and `CY_SDK_TOKEN` are not "
            "set; tools can be called only from code run by `execute_code` in a code-mode session"
        )
    if _connection is not None and _connection[0] == path:
        return _connection
    _close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as err:
        sock.close()
        raise ToolError(
            "the SDK channel `%s` is closed (%s): a channel serves only the execution that "
            "opened it, while it runs; use the `CY_SDK_SOCKET` of this run" % (path, err.strerror or err)
        ) from None
    _connection = (path, sock, sock.makefile("rb"))
    return _connection


def _request(body, tool=None):
    _, sock, reader = _connect()
    body["token"] = os.environ.get("CY_SDK_TOKEN", "")
    try:
        sock.sendall(json.dumps(body).encode("utf-8") + b"\n")
        line = reader.readline()
    except OSError as err:
        _close()
        raise ToolError("the SDK channel failed (%s); the execution may have ended" % err) from None
    if not line:
        _close()
        raise ToolError("the SDK channel was closed by the runtime; the execution may have ended")
    reply = json.loads(line)
    if "error" in reply:
        raise ToolError(reply["error"], tool)
    return reply["ok"]


def call(tool, arguments=None, /, **kwargs):
    """Calls the session's tool `tool` with keyword arguments (or one dict) and returns its
    result: text, or parsed JSON for structured results. Raises `ToolError` on an error result."""
    args = dict(arguments or {})
    args.update(kwargs)
    return _request({"tool": tool, "arguments": args}, tool)


def tools():
    """The names of the tools this code may call."""
    return _request({"op": "tools"})
