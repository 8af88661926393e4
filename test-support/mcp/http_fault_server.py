"""An MCP server over streamable HTTP (standard library only) that loses sessions on demand, for
the client's tests. It listens on 127.0.0.1, on a port of the system's choice, which it prints
as its first line. `POST /mcp` only (JSON answers, no SSE); a session it does not know is
answered 404, as the protocol says. Its tools: `echo` answers; `forget` forgets every session
(the next request of any gets 404); `slow` waits `seconds` and answers, unless its session was
forgotten meanwhile: then it answers 404 (`then` = "404", the server says it never ran it) or
drops the connection without answering (`then` = "drop", as a server that crashed); with `then`
= "sse" it answers with an event stream at once and never sends the result on it (the client
learns the session is lost from its next request's 404). With
`--token T`, every request must carry `Authorization: Bearer T`, else it is answered 401 (with a
`WWW-Authenticate` challenge when it carried a wrong token).
Requests it refused are appended to `refused.log` in its working folder."""

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = None
if "--token" in sys.argv:
    TOKEN = sys.argv[sys.argv.index("--token") + 1]

lock = threading.Lock()
sessions = set()

TOOLS = [
    {"name": "echo", "description": "Echoes `text`.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "forget", "description": "Forgets every session.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "slow", "description": "Answers after `seconds`, unless its session is forgotten meanwhile.",
     "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}, "then": {"type": "string"}}}},
]


def log_refused(what):
    with lock:
        with open("refused.log", "a") as log:
            log.write(what + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if TOKEN is None or self.headers.get("Authorization") == "Bearer " + TOKEN:
            return True
        given = self.headers.get("Authorization")
        log_refused("401 " + str(given))
        # A wrong token gets a challenge, a missing one a bare 401: clients see both.
        challenge = [("WWW-Authenticate", 'Bearer error="invalid_token"')] if given else []
        self.answer(401, {"error": "a valid bearer token is required"}, challenge)
        return False

    def do_GET(self):
        # No stream of its own for the client: the protocol allows 405.
        if self.authorized():
            self.answer(405)

    def do_DELETE(self):
        if self.authorized():
            with lock:
                sessions.discard(self.headers.get("Mcp-Session-Id"))
            self.answer(200)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length) or b"{}")
        if not self.authorized():
            return
        method = message.get("method")
        session = self.headers.get("Mcp-Session-Id")
        if method == "initialize":
            session = uuid.uuid4().hex
            with lock:
                sessions.add(session)
            self.answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "http-fault", "version": "1"}}},
                [("Mcp-Session-Id", session)])
            return
        if session is None:
            if "id" in message and method is not None:
                self.answer(200, {"jsonrpc": "2.0", "id": message["id"],
                                  "error": {"code": -32601, "message": "no method " + method}})
            else:
                self.answer(400, {"error": "no session"})
            return
        with lock:
            known = session in sessions
        if not known:
            log_refused("404 " + str(method))
            self.answer(404, {"error": "no such session"})
            return
        if "id" not in message or method is None:
            # A notification, or an answer to a request of ours.
            self.answer(202)
            return
        if method == "tools/list":
            self.answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": TOOLS}})
        elif method == "tools/call":
            self.call(message, session)
        elif method == "ping":
            self.answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": {}})
        else:
            self.answer(200, {"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32601, "message": "no method " + method}})

    def call(self, message, session):
        params = message["params"]
        name, args = params["name"], params.get("arguments") or {}
        if name == "echo":
            text = "echo: " + args.get("text", "")
        elif name == "forget":
            with lock:
                sessions.clear()
            text = "forgot"
        elif name == "slow" and args.get("then") == "sse":
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            until = time.monotonic() + float(args.get("seconds", 1))
            try:
                while time.monotonic() < until:
                    self.wfile.write(b": waiting\n\n")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
            return
        elif name == "slow":
            until = time.monotonic() + float(args.get("seconds", 1))
            while time.monotonic() < until:
                time.sleep(0.05)
                with lock:
                    forgotten = session not in sessions
                if forgotten:
                    if args.get("then") == "drop":
                        self.close_connection = True
                        return
                    log_refused("404 in flight")
                    self.answer(404, {"error": "no such session"})
                    return
            text = "slow done"
        else:
            self.answer(200, {"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32602, "message": "no tool " + name}})
            return
        self.answer(200, {"jsonrpc": "2.0", "id": message["id"],
                          "result": {"content": [{"type": "text", "text": text}]}})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
