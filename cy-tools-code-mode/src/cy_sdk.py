"""cy_sdk: call the session's tools from code run by `execute_code` (code mode).

    import cy_sdk
    text = cy_sdk.tools.read_file("a.txt", limit=10)  # one typed function per tool
    help(cy_sdk.tools.read_file)                       # its arguments and documentation
    text = cy_sdk.call("read_file", path="a.txt")     # the same call by name
    cy_sdk.tools()                                     # names of the tools that may be called

A call returns the tool's text, or parsed JSON for structured results. A failed or refused call
raises `cy_sdk.ToolError`; `str(err)` is the message the model would have seen.
Standard library only. The channel is a socket the run inherited (its descriptor number is in
`CY_SDK_FD`); it lives as long as the execution, and processes the code starts do not get it.
Calls from several threads take turns on it.
"""

import json
import os
import socket
import threading

import types

__all__ = ["ToolError", "call", "tools"]


class ToolError(Exception):
    """A tool call failed or was refused; `str(err)` is the model-facing message."""

    def __init__(self, message, tool=None):
        super().__init__(message)
        self.message = message
        self.tool = tool


_lock = threading.Lock()
_channel = None  # (socket, reader)


def _open():
    global _channel
    if _channel is not None:
        return _channel
    number = os.environ.get("CY_SDK_FD", "")
    try:
        fd = int(number)
        # Not passed on to programs this code starts: the channel is this run's alone.
        os.set_inheritable(fd, False)
        sock = socket.socket(fileno=fd)
    except (ValueError, OSError):
        raise ToolError(
            "code mode is not enabled for this run: it has no SDK channel (`CY_SDK_FD` is %s); "
            "tools can be called only from code that `execute_code` runs in a code-mode session"
            % ("unset" if not number else "`%s`, not an open socket" % number)
        ) from None
    _channel = (sock, sock.makefile("rb"))
    return _channel


def _request(body, tool=None):
    with _lock:
        sock, reader = _open()
        try:
            sock.sendall(json.dumps(body).encode("utf-8") + b"\n")
            line = reader.readline()
        except (BrokenPipeError, ConnectionResetError):
            line = b""
        except OSError as err:
            raise ToolError("the SDK channel failed (%s); the execution may have ended" % err) from None
    if not line:
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


def _call(tool, arguments):
    """One call from a function of `cy_sdk.tools`: arguments left at `None` are not sent, so the
    tool applies its own defaults."""
    args = {name: value for name, value in arguments.items() if value is not None}
    return _request({"tool": tool, "arguments": args}, tool)


def _names():
    return _request({"op": "tools"})


class _ToolsModule(types.ModuleType):
    """`cy_sdk.tools`: the generated functions; calling it, as before it was a module, gives the
    names of the tools this code may call."""

    def __call__(self):
        return _names()


# The generated module of this session's tools, beside this file.
from . import tools  # noqa: E402

tools.__class__ = _ToolsModule
