"""A real OpenAI-compatible HTTP server on 127.0.0.1 with scripted replies (tests, benchmarks).

`LoopbackServer` serves `POST /v1/chat/completions` from a `ThreadingHTTPServer` in a background
thread, on a free port. Each request gets the next scripted `Reply` (`server.script(...)`), or,
when the script is empty, whatever the `responder` function returns for the request body. Helpers
build the replies: `tool_calls(...)`, `answer(...)`, `error(500)`, and `delay` on any of them
(a reply delayed past the client's timeout). `OracleResponder` reads the request's messages and
answers with the right tool calls for the task (the ground truth's parallel layers), then the
final answer, so whole runs can succeed.

Every request body is kept in `server.requests`; `server.max_in_flight`, `server.durations` and
`server.occupancy` (seconds spent with k requests in flight) show how many were served at once.

    with LoopbackServer(OracleResponder([bundle]), delay=0.2) as server:
        agent = OpenAIAgent("loopback", server.base_url)
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scn.runtime.bundle import LoadedBundle

__all__ = ["LoopbackServer", "OracleResponder", "Reply", "answer", "error", "tool_calls"]

_ids = itertools.count(1)


@dataclass
class Reply:
    """One scripted HTTP reply: status, JSON body (or raw text), headers and a delay in seconds."""

    status: int = 200
    body: Any = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    def after(self, seconds: float) -> Reply:
        """The same reply, sent `seconds` later."""
        return replace(self, delay=seconds)


def _usage(usage: dict[str, int] | None, prompt: int = 50, completion: int = 10) -> dict[str, int]:
    if usage is not None:
        return usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def completion(
    message: dict[str, Any],
    finish_reason: str,
    usage: dict[str, int] | None = None,
    model: str = "loopback",
) -> Reply:
    """A `chat.completion` reply with one choice."""
    body = {
        "id": f"chatcmpl-loopback-{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": _usage(usage),
    }
    return Reply(body=body)


def tool_calls(
    *calls: tuple[str, Any], usage: dict[str, int] | None = None, content: str | None = None
) -> Reply:
    """A reply with tool calls; each call is (name, arguments), a string sent as is, else JSON."""
    items = []
    for name, arguments in calls:
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        items.append(
            {
                "id": f"call_{next(_ids)}",
                "type": "function",
                "function": {"name": name, "arguments": raw},
            }
        )
    message = {"role": "assistant", "content": content, "tool_calls": items}
    return completion(message, "tool_calls", usage)


def answer(text: str, usage: dict[str, int] | None = None) -> Reply:
    """A reply with a plain message and no tool calls."""
    return completion({"role": "assistant", "content": text}, "stop", usage)


def error(
    status: int = 500, message: str = "scripted failure", headers: dict[str, str] | None = None
) -> Reply:
    """An error reply in the OpenAI error shape."""
    body = {"error": {"message": message, "type": "server_error", "param": None, "code": None}}
    return Reply(status=status, body=body, headers=dict(headers or {}))


Responder = Callable[[dict[str, Any]], Reply]


class LoopbackServer:
    """`POST /v1/chat/completions` on 127.0.0.1, answered from a script, then a responder.

    Args:
        responder: Called with the request body when the script is empty (none: HTTP 500).
        delay: Seconds added before every reply (a model's thinking time).
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        delay: float = 0.0,
        models: set[str] | None = None,
        api_key: str | None = None,
    ) -> None:
        self.responder = responder
        self.delay = delay
        #: when set, a request naming another model gets 404 and one without this bearer key 401,
        #: as vLLM and hosted APIs answer them
        self.models = models
        self.api_key = api_key
        self.queue: deque[Reply | Responder] = deque()
        self.requests: list[dict[str, Any]] = []
        self.durations: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        #: seconds spent with k requests in flight, from the first request's arrival on
        self.occupancy: dict[int, float] = {}
        self._changed: float | None = None
        self.lock = threading.Lock()
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # ------------------------------------------------------------ control
    def script(self, *replies: Reply | Responder) -> LoopbackServer:
        """Queue replies (or functions of the request body) for the next requests, in order."""
        with self.lock:
            self.queue.extend(replies)
        return self

    @property
    def base_url(self) -> str:
        assert self.httpd is not None, "the server is not started"
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> LoopbackServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stall

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                server._serve(self)

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False  # do not wait for a reply still sleeping past its client
        self.httpd = httpd
        self.thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None
        if self.thread is not None:
            self.thread.join(timeout=5)
            self.thread = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset_stats(self) -> None:
        with self.lock:
            self.requests.clear()
            self.durations.clear()
            self.max_in_flight = 0
            self.occupancy = {}
            self._changed = None

    # ------------------------------------------------------------ serving
    def _next(self, request: dict[str, Any]) -> Reply:
        with self.lock:
            item = self.queue.popleft() if self.queue else None
        if item is None:
            if self.responder is None:
                return error(500, "the loopback script is exhausted")
            return self.responder(request)
        return item(request) if callable(item) else item

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        started = time.perf_counter()
        with self.lock:
            self._tick(started)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            length = int(handler.headers.get("Content-Length") or 0)
            raw = handler.rfile.read(length) if length else b""
            if handler.path.rstrip("/") != "/v1/chat/completions":
                reply = error(404, f"no route {handler.path}")
            else:
                try:
                    request = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    request = None
                auth = handler.headers.get("Authorization") or ""
                if isinstance(request, dict) and (self.api_key or self.models):
                    with self.lock:
                        self.requests.append(request)  # refused ones are kept too
                if not isinstance(request, dict):
                    reply = error(400, "the body is not a JSON object")
                elif self.api_key is not None and auth != f"Bearer {self.api_key}":
                    reply = error(401, "Incorrect API key provided")
                elif self.models is not None and request.get("model") not in self.models:
                    reply = error(404, f"The model `{request.get('model')}` does not exist.")
                else:
                    if not (self.api_key or self.models):
                        with self.lock:
                            self.requests.append(request)
                    try:
                        reply = self._next(request)
                    except Exception as e:  # noqa: BLE001 - a broken script answers 500
                        reply = error(500, f"responder failed: {type(e).__name__}: {e}")
            wait = self.delay + reply.delay
            if wait > 0:
                time.sleep(wait)
            body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            data = body.encode("utf-8")
            try:
                handler.send_response(reply.status)
                handler.send_header("Content-Type", "application/json")
                handler.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    handler.send_header(key, value)
                handler.end_headers()
                handler.wfile.write(data)
                handler.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
                handler.close_connection = True  # the client gave up (its timeout)
        finally:
            ended = time.perf_counter()
            with self.lock:
                self._tick(ended)
                self.in_flight -= 1
                self.durations.append(ended - started)

    def _tick(self, now: float) -> None:
        """Account the time since the last change to the current number in flight (lock held)."""
        if self._changed is not None:
            self.occupancy[self.in_flight] = (
                self.occupancy.get(self.in_flight, 0.0) + now - self._changed
            )
        self._changed = now


# --------------------------------------------------------------------------- oracle mode


class OracleResponder:
    """Answers like a perfect model: the task's ground-truth layers as parallel tool calls.

    The task is found from the request's user message (its query and the given values); what the
    model holds comes from the `tool` messages (`{"ok": true, "output", "value"}`), and the next
    reply calls the first layer's tools whose outputs are not held yet (so a wasted turn does not
    derail it). Once every layer is done it answers with the goals' values. A request with
    `parallel_tool_calls: false` gets one call per reply, as a server honouring it sends.
    """

    def __init__(self, bundles: LoadedBundle | Iterable[LoadedBundle]) -> None:
        self.bundles = [bundles] if isinstance(bundles, LoadedBundle) else list(bundles)

    def find(self, text: str) -> tuple[LoadedBundle, dict[str, Any]]:
        for bundle in self.bundles:
            for task in bundle.tasks.values():
                if str(task["query"]).strip() in text and all(
                    str(v) in text for v in task["given"].values()
                ):
                    return bundle, task
        raise LookupError("no task matches the user message")

    def __call__(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages") or []
        user = next(m for m in messages if m.get("role") == "user")
        bundle, task = self.find(str(user.get("content")))
        if not request.get("tools") and len(messages) == 1:  # a tool-selection request
            wanted = [s["tool"] for s in task.get("subtasks") or []] or list(task["truth"]["path"])
            return answer("\n".join(dict.fromkeys(wanted)), usage=_usage(None, 400, 30))
        held = {**task.get("stated", {}), **task["given"]}  # stated: as the request tells them
        returned: set[str] = set()
        for message in messages:
            if message.get("role") != "tool":
                continue
            try:
                result = json.loads(message.get("content") or "")
            except json.JSONDecodeError:
                continue
            if isinstance(result, dict) and result.get("ok") and result.get("output"):
                held[result["output"]] = result["value"]
                returned.add(str(result["value"]))
        prompt = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 20 * len(
            request.get("tools") or []
        )
        if "entities" in task:  # a fan-out task: each subtask is sent its own entity's values
            done = {s["id"] for s in task["subtasks"] if s["value"] in returned}
            ready = [
                (s["tool"], dict(s["args"]))
                for s in task["subtasks"]
                if s["id"] not in done and set(s["depends_on"]) <= done
            ]
            if ready:
                ready = ready[:1] if request.get("parallel_tool_calls") is False else ready
                return tool_calls(*ready, usage=_usage(None, prompt, 15 * len(ready)))
            text = "Here is what you asked for: " + ", ".join(s["value"] for s in task["subtasks"])
            return answer(text, usage=_usage(None, prompt, 12))
        layers = task["truth"].get("layers") or [[t] for t in task["truth"]["path"]]
        for layer in layers:
            missing = [t for t in layer if not set(bundle.tools[t]["outputs"]) <= set(held)]
            if missing:
                calls = [
                    (t, {p["name"]: held.get(p["datatype"], "") for p in bundle.tools[t]["params"]})
                    for t in missing
                ]
                calls = calls[:1] if request.get("parallel_tool_calls") is False else calls
                return tool_calls(*calls, usage=_usage(None, prompt, 15 * len(calls)))
        text = "Here is what you asked for: " + ", ".join(held.get(g, "?") for g in task["goals"])
        return answer(text, usage=_usage(None, prompt, 12))
