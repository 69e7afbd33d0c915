"""A stand-in for ``llama-server`` with no model: the same command line, Unix socket and routes.

The server engine's process logic (start-up, the ready line, mirroring the server's death,
restarts, retries, streaming) is tested against this script, in seconds and without model
weights. A completion's text is the JSON of the request fields that matter to the tests (the
grammar by its SHA-256);
streamed, it is ``max_tokens`` pieces, one every 50 ms. A model path ending in
``.broken`` exits with code 3 before serving, as a build that cannot load a model would.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler

PROPS = {
    "chat_template": "{{ '<start_of_turn>' + role }}",  # detected as the gemma turn format
    "build_info": "b0-fake",
    "total_slots": 2,
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def address_string(self) -> str:  # a Unix socket has no client address
        return "local"

    def log_message(self, format: str, *args: object) -> None:
        sys.stderr.write("fake llama-server: " + format % args + "\n")

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._json(200, {"status": "ok"})
        elif self.path == "/props":
            self._json(200, PROPS)
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/completions":
            self._json(404, {"error": {"message": "not found"}})
            return
        if "too long" in body["prompt"]:
            self._json(400, {"error": {"message": "the request exceeds the available context"}})
            return
        if not body.get("stream"):
            fields = ("prompt", "seed", "temperature", "stop", "top_k", "min_p")
            echo = {k: body.get(k) for k in fields}
            echo["grammar"] = hashlib.sha256(body.get("grammar", "").encode()).hexdigest()
            text = json.dumps(echo)
            usage = {"prompt_tokens": 5, "completion_tokens": body["max_tokens"]}
            choice = {"text": text, "finish_reason": "stop"}
            self._json(200, {"choices": [choice], "usage": usage})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for n in range(body["max_tokens"]):
            chunk = {"choices": [{"text": f"t{n} "}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            time.sleep(0.05)
        self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", required=True)
    args, _ = parser.parse_known_args()
    if args.model.endswith(".broken"):
        print("fake llama-server: failed to load the model", file=sys.stderr)
        sys.exit(3)
    if os.path.exists(args.host):
        os.unlink(args.host)
    with Server(args.host, Handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
