"""A Hugging Face Hub stand-in on loopback: one folder served as a dataset repository, read-only.

The leaderboard's per-sample details live in Hub dataset repositories, read as
hf://datasets/ORG/NAME/... through huggingface_hub's HfFileSystem. No Hub runs
here, so this server answers the four calls HfFileSystem makes to list and
read a repository (the real client, pointed at it with HF_ENDPOINT):

- GET  /api/datasets/ORG/NAME[/revision/REV]     the repository exists (its commit sha)
- GET  /api/datasets/ORG/NAME/tree/REV[/PATH]    a folder's entries (?recursive=true: all below it)
- POST /api/datasets/ORG/NAME/paths-info/REV     entries of the given paths
- GET|HEAD /datasets/ORG/NAME/resolve/REV/PATH   a file's bytes (Range requests honoured)

Every request is recorded in `requests`, so a test can say what was asked.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

COMMIT = "0123456789abcdef0123456789abcdef01234567"
_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


class HubServer:
    """serve(root, "org/name") while a test runs: .endpoint is the base URL, .requests what was asked."""

    def __init__(self, root: Path, repo_id: str):
        self.root, self.repo_id = root, repo_id
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        handler = type("Handler", (_Handler,), {"hub": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def entry(self, path: Path) -> dict:
        relative = path.relative_to(self.root).as_posix()
        if path.is_dir():
            return {
                "type": "directory",
                "oid": hashlib.sha1(relative.encode()).hexdigest(),
                "size": 0,
                "path": relative,
            }
        size = path.stat().st_size
        return {
            "type": "file",
            "oid": _blob_id(path, size, path.stat().st_mtime_ns),
            "size": size,
            "path": relative,
        }


@functools.cache
def _blob_id(path: Path, size: int, mtime: int) -> str:
    """git's blob id, as the Hub gives it; hashed a block at a time (the tests measure the client's memory)."""
    blob = hashlib.sha1(b"blob %d\0" % size)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            blob.update(block)
    return blob.hexdigest()


class _Handler(BaseHTTPRequestHandler):
    hub: HubServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = self.rfile.read(length).decode()
        self.hub.requests.append(("POST", self.path, dict(self.headers)))
        prefix = f"/api/datasets/{self.hub.repo_id}/paths-info/"
        if not urlsplit(self.path).path.startswith(prefix):
            return self._json(404, {"error": "not found"})
        fields = (
            json.loads(form) if form.startswith("{") else {k: v for k, v in parse_qs(form).items()}
        )
        paths = fields.get("paths", [])
        paths = [paths] if isinstance(paths, str) else paths
        found = [self.hub.entry(self.hub.root / p) for p in paths if (self.hub.root / p).exists()]
        self._json(200, found)

    def _answer(self, body: bool) -> None:
        self.hub.requests.append((self.command, self.path, dict(self.headers)))
        url = urlsplit(self.path)
        path, query = unquote(url.path), parse_qs(url.query)
        api = f"/api/datasets/{self.hub.repo_id}"
        if path in (api, f"{api}/revision/main"):
            return self._json(
                200, {"id": self.hub.repo_id, "sha": COMMIT, "private": False, "siblings": []}
            )
        if path.startswith(f"{api}/tree/main"):
            return self._tree(
                path[len(f"{api}/tree/main") :].strip("/"), query.get("recursive") == ["true"]
            )
        resolve = f"/datasets/{self.hub.repo_id}/resolve/main/"
        if path.startswith(resolve):
            return self._file(self.hub.root / path[len(resolve) :], body)
        self._json(404, {"error": f"no route for {path}"}, headers={"X-Error-Code": "RepoNotFound"})

    def _tree(self, folder: str, recursive: bool) -> None:
        base = self.hub.root / folder
        if not base.is_dir():
            return self._json(
                404, {"error": "no such folder"}, headers={"X-Error-Code": "EntryNotFound"}
            )
        children = sorted(base.rglob("*") if recursive else base.iterdir())
        self._json(200, [self.hub.entry(child) for child in children])

    def _file(self, file: Path, body: bool) -> None:
        if not file.is_file():
            return self._json(
                404, {"error": "no such file"}, headers={"X-Error-Code": "EntryNotFound"}
            )
        size = file.stat().st_size
        status, start, end = 200, 0, size
        match = _RANGE.match(self.headers.get("Range", ""))
        if match:
            status, start = 206, int(match.group(1))
            end = min(size, int(match.group(2)) + 1) if match.group(2) else size
        self.send_response(status)
        self.send_header("Content-Length", str(max(0, end - start)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", f'"{self.hub.entry(file)["oid"]}"')
        self.send_header("X-Repo-Commit", COMMIT)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        self.end_headers()
        if body:  # sent from the file a block at a time, as a server streams a large file
            with open(file, "rb") as handle:
                handle.seek(start)
                left = end - start
                while left > 0:
                    block = handle.read(min(1 << 16, left))
                    if not block:
                        break
                    self.wfile.write(block)
                    left -= len(block)

    def _json(self, status: int, value, headers: dict | None = None) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Repo-Commit", COMMIT)
        for key, header in (headers or {}).items():
            self.send_header(key, header)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
