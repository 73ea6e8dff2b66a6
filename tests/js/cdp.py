"""A small Chrome DevTools Protocol client over --remote-debugging-pipe,
standard library only: Chromium reads commands from fd 3 and writes replies
and events to fd 4, each message JSON terminated by a NUL byte.

    with Browser() as browser:
        page = browser.new_page()
        page.navigate("http://127.0.0.1:8000/")
        value = page.evaluate("1 + 1")
"""
import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu",
    "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
    "--disable-extensions", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--mute-audio",
    "--window-size=900,700",
]


class BrowserError(RuntimeError):
    pass


def find_chromium():
    for name in (os.environ.get("LRELU_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _high_fd(fd):
    """A copy of fd numbered 10 or above, so that 3 and 4 are free to map."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    def __init__(self, chromium=None, extra_flags=()):
        chromium = chromium or find_chromium()
        if chromium is None:
            raise BrowserError("chromium not found (Debian package chromium)")
        self.profile = tempfile.mkdtemp(prefix="lrelu-chromium-")
        to_r, to_w = (_high_fd(f) for f in os.pipe())
        from_r, from_w = (_high_fd(f) for f in os.pipe())

        def child_fds():  # runs in the child before exec
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [chromium, *CHROMIUM_FLAGS, *extra_flags,
             f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self.stderr, preexec_fn=child_fds, pass_fds=(3, 4, to_r, from_w))
        os.close(to_r)
        os.close(from_w)
        self.writer = os.fdopen(to_w, "wb", buffering=0)
        self.reader = os.fdopen(from_r, "rb", buffering=0)
        self.next_id = 0
        self.lock = threading.Lock()
        self.waiting = {}
        self.events = queue.Queue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        pending = b""
        while True:
            chunk = self.reader.read(1 << 20)
            if not chunk:
                break
            pending += chunk
            while b"\0" in pending:
                raw, pending = pending.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self.lock:
                        slot = self.waiting.pop(message["id"], None)
                    if slot is not None:
                        slot.put(message)
                else:
                    self.events.put(message)
        with self.lock:
            for slot in self.waiting.values():
                slot.put({"error": {"message": "the browser closed the pipe"}})
            self.waiting.clear()

    def send(self, method, params=None, session=None, timeout=600):
        with self.lock:
            self.next_id += 1
            mid = self.next_id
            slot = queue.Queue()
            self.waiting[mid] = slot
        message = {"id": mid, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.writer.write(json.dumps(message).encode() + b"\0")
        try:
            reply = slot.get(timeout=timeout)
        except queue.Empty:
            raise BrowserError(f"{method}: no reply in {timeout} s") from None
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error'].get('message')}")
        return reply["result"]

    def version(self):
        return self.send("Browser.getVersion")

    def new_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:  # pylint: disable=broad-except
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.writer.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def log_tail(self, limit=4000):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-limit:]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    def __init__(self, browser, session):
        self.browser = browser
        self.session = session
        self.console = []
        self.send("Runtime.enable")
        self.send("Page.enable")

    def send(self, method, params=None, timeout=600):
        return self.browser.send(method, params, self.session, timeout)

    def drain_events(self):
        """Collects console messages and exceptions seen so far."""
        while True:
            try:
                event = self.browser.events.get_nowait()
            except queue.Empty:
                return
            if event.get("sessionId") != self.session:
                continue
            if event["method"] == "Runtime.consoleAPICalled":
                args = event["params"]["args"]
                self.console.append(" ".join(str(a.get("value", a.get("description", "")))
                                             for a in args))
            elif event["method"] == "Runtime.exceptionThrown":
                details = event["params"]["exceptionDetails"]
                self.console.append("exception: " + details.get("exception", {}).get(
                    "description", details.get("text", "")))

    def navigate(self, url, timeout=60):
        self.send("Page.navigate", {"url": url}, timeout)
        # Wait until the document and its module scripts have run.
        self.evaluate("new Promise(r => document.readyState === 'complete' ? r() : "
                      "addEventListener('load', () => r()))", timeout=timeout)

    def evaluate(self, expression, timeout=600):
        """Runs expression (awaiting a promise) and returns its JSON value;
        a thrown error becomes BrowserError with the page's message."""
        result = self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True,
            "timeout": timeout * 1000}, timeout + 5)
        self.drain_events()
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"page threw: {text}")
        return result["result"].get("value")

    def screenshot(self):
        """PNG bytes of the viewport."""
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        return base64.b64decode(data)
