"""An MCP server (stdio, standard library only) that misbehaves on demand, for the client's
fault tests: `hang` never answers, `die` exits in the middle of a call, `read` opens any path
(so the tests see the sandbox refuse one outside), `echo` answers, `ask` asks the client's model
and user, `change` changes its tool list (`read` gone, `echo` taking at most 5 characters, `added`
new) and says so with `notifications/tools/list_changed`, `count` reports its progress with a
message at each step; its tool list comes in two pages.
Cancellations it receives are appended to `cancelled.log` in its working folder (the session's
workspace), and its process id to `started.log` when it starts."""

import json
import os
import sys
import threading
import time

with open("started.log", "a") as started:
    started.write(str(os.getpid()) + "\n")

lock = threading.Lock()
# Answers to the requests this server sends its client, by id.
answers = {}
answered = threading.Condition()


def send(message):
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


TOOLS = [
    {"name": "echo", "description": "Echoes `text`.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "die", "description": "Exits mid-call.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "read", "description": "Reads a file anywhere.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "ask", "description": "Asks the client's model, then its user.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "look/around", "description": "A name with a slash and a schema the validator cannot check.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False}},
    {"name": "change", "description": "Changes this server's tool list.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "count", "description": "Counts to 3, reporting progress with a message at each step.",
     "inputSchema": {"type": "object", "properties": {}}},
]


def change_tools():
    global TOOLS
    changed = []
    for tool in TOOLS:
        if tool["name"] == "read":
            continue
        if tool["name"] == "echo":
            tool = json.loads(json.dumps(tool))
            tool["inputSchema"]["properties"]["text"]["maxLength"] = 5
        changed.append(tool)
    changed.append({"name": "added", "description": "New after `change`.", "inputSchema": {"type": "object", "properties": {}}})
    TOOLS = changed


def ask_client(id, method, params):
    send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    with answered:
        answered.wait_for(lambda: id in answers, timeout=10)
        return answers.pop(id, {"error": {"message": "no answer"}})


def call(request):
    params = request["params"]
    name, args = params["name"], params.get("arguments") or {}
    if name == "hang":
        return
    if name == "die":
        os._exit(3)
    if name == "ask":
        sampled = ask_client("s-" + str(request["id"]), "sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
            "maxTokens": 20})
        elicited = ask_client("e-" + str(request["id"]), "elicitation/create", {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
        result = {"content": [{"type": "text", "text": json.dumps({"sampled": sampled, "elicited": elicited})}]}
    elif name == "change":
        change_tools()
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        result = {"content": [{"type": "text", "text": "changed"}]}
    elif name == "count":
        token = (params.get("_meta") or {}).get("progressToken")
        for step in (1, 2, 3):
            time.sleep(0.1)
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                    "progressToken": token, "progress": step, "total": 3, "message": "step %d of 3" % step}})
        result = {"content": [{"type": "text", "text": "counted"}]}
    elif name == "added":
        result = {"content": [{"type": "text", "text": "added answers"}]}
    elif name == "echo" or name == "look/around":
        text = args.get("text", args.get("a", ""))
        result = {"content": [{"type": "text", "text": "echo: " + text}]}
    elif name == "read":
        try:
            with open(args["path"]) as f:
                result = {"content": [{"type": "text", "text": f.read()}]}
        except OSError as err:
            result = {"content": [{"type": "text", "text": "could not read: " + str(err)}], "isError": True}
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": "no tool " + name}})
        return
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


for line in sys.stdin:
    request = json.loads(line)
    method = request.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": request["id"], "result": {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "fault", "version": "1"}}})
    elif method == "tools/list":
        # Two pages, so a client that reads only the first misses tools.
        tools = TOOLS
        if (request.get("params") or {}).get("cursor") == "page-2":
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools[3:]}})
        else:
            send({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": tools[:3], "nextCursor": "page-2"}})
    elif method == "tools/call":
        threading.Thread(target=call, args=(request,), daemon=True).start()
    elif method == "notifications/cancelled":
        with open("cancelled.log", "a") as log:
            log.write(str(request["params"].get("requestId")) + "\n")
    elif method is None and "id" in request:
        with answered:
            answers[request["id"]] = request
            answered.notify_all()
    elif "id" in request:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no method " + method}})
