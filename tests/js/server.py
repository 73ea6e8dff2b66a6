"""The test's web server: 127.0.0.1 on an ephemeral port, standard library.

    /js/...           the js/ package as published (package.json, src/, demo/)
    /tests/js/...     the browser-side test code
    /pkg/v1/...       contract/v1 (a base URL for getKernel)
    /rev/<40 hex>/... contract/v1 again (a base URL with {revision})
    /tampered/v1/...  contract/v1 with one WGSL template changed by a byte
    /data/...         files the test writes (inputs, expected bits)
    /bench/wgsl/...   bench/wgsl/cost.js (the cost measurement's page code)
    /page.html        a page whose import map maps the package name to its
                      `exports` entry, so `import ... from "<name>"` resolves
                      the way a bundler or npm would
"""
import functools
import http.server
import json
import os
import pathlib
import re
import threading

ROOT = pathlib.Path(__file__).resolve().parents[2]
JS = ROOT / "js"
TAMPERED_FILE = "helpers-f32.wgsl"


def package_json():
    return json.loads((JS / "package.json").read_text())


def import_map():
    pkg = package_json()
    entry = pkg["exports"]["."]
    entry = entry["default"] if isinstance(entry, dict) else entry
    return {"imports": {pkg["name"]: "/js/" + entry.lstrip("./")}}


def page_html(script):
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>lrelu-webgpu test</title>
<script type="importmap">{json.dumps(import_map())}</script>
<script type="module" src="{script}"></script>
</head><body></body></html>
""".encode()


class Handler(http.server.SimpleHTTPRequestHandler):
    data_dir = None

    def log_message(self, *args):  # quiet
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def send_bytes(self, body, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # pylint: disable=invalid-name
        path = self.path.split("?", 1)[0]
        if path == "/page.html":
            return self.send_bytes(page_html("/tests/js/browser_checks.js"), "text/html")
        if path.startswith("/tampered/v1/"):
            name = path[len("/tampered/v1/"):]
            if "/" not in name and (ROOT / "contract/v1" / name).is_file():
                body = (ROOT / "contract/v1" / name).read_bytes()
                if name == TAMPERED_FILE:
                    body = body.replace(b"0x7f800000u", b"0x7f800001u", 1)
                return self.send_bytes(body, "text/plain")
        return super().do_GET()

    def translate_path(self, path):
        path = path.split("?", 1)[0]
        routes = [("/js/", JS), ("/tests/js/", ROOT / "tests/js"),
                  ("/pkg/v1/", ROOT / "contract/v1"),
                  ("/bench/wgsl/", ROOT / "bench/wgsl"),
                  ("/data/", pathlib.Path(self.data_dir or "/nonexistent"))]
        match = re.match(r"^/rev/[0-9a-f]{40}/", path)
        if match:
            routes.append((match.group(0), ROOT / "contract/v1"))
        for prefix, base in routes:
            if path.startswith(prefix):
                rest = path[len(prefix):]
                if ".." in rest.split("/"):
                    break
                return str(base / rest)
        return "/nonexistent"


class Server:
    def __init__(self, data_dir):
        handler = functools.partial(type("H", (Handler,), {"data_dir": data_dir}))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
