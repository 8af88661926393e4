"""cy_sdk: call the session's tools from code run by `execute_code` (code mode).

    import cy_sdk
    text = cy_sdk.tools.read_file("a.txt", limit=10)  # one typed function per tool
    help(cy_sdk.tools.read_file)                       # its arguments and documentation
    text = cy_sdk.call("read_file", path="a.txt")     # the same call by name
    cy_sdk.tools()                                     # names of the tools that may be called
    cy_sdk.servers.time.get_current_time(timezone="UTC")  # an MCP server's tool, by server
    cy_sdk.search("current time")                      # tools by words of their name, docs, arguments
    print(cy_sdk.describe("time.get_current_time"))    # one tool's signature and documentation
    cy_sdk.sources()                                   # the modules: cy_sdk.tools, each server's

A call returns the tool's text, or parsed JSON for structured results. A failed or refused call
raises `cy_sdk.ToolError`; `str(err)` is the message the model would have seen.
Discovery (`search`, `describe`, `sources`) reads the generated module: no call, no network.
Standard library only. The channel is a socket the run inherited (its descriptor number is in
`CY_SDK_FD`); it lives as long as the execution, and processes the code starts do not get it.
Calls from several threads take turns on it.
"""

import bisect
import functools
import inspect
import json
import os
import re
import socket
import sys
import threading
import types

__all__ = ["ToolError", "call", "describe", "search", "servers", "sources", "tools"]


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


def _typed(tool, positional, names):
    """Wraps a generated function: arguments that do not fit its signature (a missing one, an
    unknown keyword) go to the host as they are, which answers with what is wrong, the message
    the model would get for the same call, raised as `ToolError`."""

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                signature.bind(*args, **kwargs)
            except TypeError as err:
                mismatch = str(err)
            else:
                return fn(*args, **kwargs)
            if len(args) > len(positional):
                raise ToolError(
                    "`%s` takes %d argument(s) by position (%s), got %d; give the others by name"
                    % (tool, len(positional), ", ".join(positional) or "none", len(args)),
                    tool,
                )
            sent = dict(zip(positional, args))
            for name, value in kwargs.items():
                key = names.get(name, name)
                if key in sent:
                    raise ToolError("`%s`: %s" % (tool, mismatch), tool)
                sent[key] = value
            return _request({"tool": tool, "arguments": sent}, tool)

        return checked

    return wrap


def _define(namespace, name):
    """Defines the function `name` of the generated module from its source, on first use."""
    entry = namespace["_TOOLS"].get(name)
    if entry is None:
        raise AttributeError(
            "cy_sdk.tools has no function %r; cy_sdk.search('words') finds tools, "
            "cy_sdk.tools() lists their names" % name
        )
    exec(entry[5], namespace)
    return namespace[name]


class _ServerModule(types.ModuleType):
    """`cy_sdk.servers.<server>`: one MCP server's tools, by the server's own names."""

    def __init__(self, name, server, functions):
        super().__init__("cy_sdk.servers." + name, "The tools of MCP server `%s`." % server)
        self.__all__ = list(functions)
        self._functions = functions

    def __getattr__(self, name):
        if name.startswith("__") or name not in self._functions:
            raise AttributeError(
                "MCP server module %s has no tool %r; its tools are %s"
                % (self.__name__, name, ", ".join(self.__all__))
            )
        fn = getattr(tools, self._functions[name])
        setattr(self, name, fn)
        return fn

    def __dir__(self):
        return list(self.__all__)


def sources():
    """The modules the tools are in: `cy_sdk.tools` (every tool, by its own name) and one
    `cy_sdk.servers.<server>` per MCP server, each with how many functions it has."""
    out = [{"module": "cy_sdk.tools", "source": "the session's tools", "functions": len(getattr(tools, "__all__", ()))}]
    for name, (server, functions) in _servers_table().items():
        out.append({"module": "cy_sdk.servers." + name, "source": "MCP server `%s`" % server,
                    "functions": len(functions)})
    return out


_WORD = re.compile(r"[a-z0-9]+")
# Left out of queries: in most descriptions, they would rank tools by how much English they
# have. The host's tool search (`cy_tools::dialect::ToolSearch`) leaves out the same.
_STOP = frozenset("a an and are as at be by for from in is it its of on or that the this to with".split())
_index = None


def _words(text):
    # `getCurrentTime`, `get_current_time` and `get-current-time` have the same words.
    return _WORD.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower())


def _summary(description):
    flat = " ".join(description.split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _entries():
    """The index, made on the first search: the tools (in order), every word they have
    (sorted, for prefix matches) and, per word, the best weight it has in each tool (3 in the
    name, 2 in an argument name, 1 in the description)."""
    global _index
    if _index is None:
        entries, postings = [], {}
        for position, (tool, path, shape, args, description, _source) in enumerate(_tools_table().values()):
            entries.append((tool, path, shape, description))
            fields = ((3, _words(tool)), (2, [w for a in args for w in _words(a)]), (1, _words(description)))
            for weight, words in fields:
                for word in words:
                    weights = postings.setdefault(word, {})
                    if weights.get(position, 0) < weight:
                        weights[position] = weight
        _index = (entries, sorted(postings), postings)
    return _index


def _weights(word, vocabulary, postings):
    """Each tool's best weight for a query word: its own, or (three letters or more) that of a
    word it starts."""
    if len(word) < 3:
        return postings.get(word, {})
    best = {}
    for known in vocabulary[bisect.bisect_left(vocabulary, word):]:
        if not known.startswith(word):
            break
        for position, weight in postings[known].items():
            if best.get(position, 0) < weight:
                best[position] = weight
    return best


def search(query, limit=10):
    """The tools whose name, description or argument names have the words of `query`, best
    first: a list of dicts with the function's `path`, the `tool`'s name, its call `shape` and a
    one-line `summary`. A word matches a word that starts with it (`dir` finds `directory`);
    a match in the name counts most, then in the arguments, then in the description."""
    words = [w for w in _words(str(query)) if w not in _STOP]
    if not words:
        raise ToolError(
            "search needs at least one word (letters or digits, not only words like `the`) to look for"
        )
    entries, vocabulary, postings = _entries()
    matched, score = {}, {}
    for word in words:
        for position, weight in _weights(word, vocabulary, postings).items():
            matched[position] = matched.get(position, 0) + 1
            score[position] = score.get(position, 0) + weight
    ranked = sorted(matched, key=lambda p: (-matched[p], -score[p], p))[: max(0, int(limit))]
    return [
        {"path": entries[p][1], "tool": entries[p][0], "shape": entries[p][2], "summary": _summary(entries[p][3])}
        for p in ranked
    ]


def _lookup(name):
    table = _tools_table()
    text = str(name)
    for prefix in ("cy_sdk.", "servers.", "tools."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    if text in table:
        return text
    server, _, short = text.partition(".")
    if short and server in _servers_table() and short in _servers_table()[server][1]:
        return _servers_table()[server][1][short]
    for function, entry in table.items():
        if entry[0] == str(name) or entry[1] == str(name):
            return function
    return None


def describe(name):
    """One tool's signature and documentation, as Python source (its result's `TypedDict`
    first, when it has one). `name` is its path (`cy_sdk.servers.time.get_current_time`,
    `time.get_current_time`), its function's name or the tool's own name."""
    function = _lookup(name)
    if function is None:
        hits = search(name, 5) if _words(str(name)) else []
        raise ToolError(
            "no tool is named `%s`%s" % (name, "; similar: " + ", ".join(h["path"] for h in hits) if hits else "")
        )
    entry = _tools_table()[function]
    lines = [line for line in entry[5].splitlines()
             if not line.startswith("@_typed(") and not line.startswith("    return _call(")]
    return "# %s\n%s\n" % (entry[1], "\n".join(lines).rstrip())


def _servers_table():
    # An empty `tools` module (a runtime that sent none) has no tables: no servers, no tools.
    return getattr(tools, "_SERVERS", {})


def _tools_table():
    return getattr(tools, "_TOOLS", {})


class _ToolsModule(types.ModuleType):
    """`cy_sdk.tools`: the generated functions; calling it, as before it was a module, gives the
    names of the tools this code may call."""

    def __call__(self):
        return _names()


# The generated module of this session's tools, beside this file.
from . import tools  # noqa: E402

tools.__class__ = _ToolsModule

# `cy_sdk.servers.<server>`, importable by name too (`from cy_sdk.servers.time import ...`).
servers = types.ModuleType("cy_sdk.servers", "The MCP servers' tools, one module per server.")
servers.__all__ = list(_servers_table())
sys.modules["cy_sdk.servers"] = servers
for _name, (_server, _functions) in _servers_table().items():
    _module = _ServerModule(_name, _server, _functions)
    setattr(servers, _name, _module)
    sys.modules["cy_sdk.servers." + _name] = _module
