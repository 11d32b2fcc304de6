"""`vivarium serve` measured from outside, as browser tabs meet it.

Usage: serve_bench.py VIVARIUM PLUGIN_DIR WORK_DIR [TABS]

Starts `vivarium serve --port 0` on the demo plugins and, over raw
WebSockets (a tab's end of RFC 6455, written here):

1. the bytes of a tab's first page and of the update after each of a
   person's steps on products:search (the next page, typing, a favourite),
   beside the bytes of the whole page after it: an update carries what
   changed;
2. a step's round trip, from the line sent to its update read (median and
   min-max of 200);
3. memory per tab: 3, 50 and TABS (200 unless given; the server takes
   256 connections) tabs open, each on the dashboard, signed in: what the
   tabs added since the first three cost, in proportional set size of the
   host and of its plugin processes (every process under it), per tab.

Prints figures; asserts nothing.
"""

import base64
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time


def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


def descendants(pid):
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                parents.setdefault(int(fields[1]), []).append(int(entry))
            except OSError:
                pass
    found, frontier = [], [pid]
    while frontier:
        children = parents.get(frontier.pop(), [])
        found += children
        frontier += children
    return found


class Tab:
    """A tab's connection: the handshake with the token's cookie, masked
    text frames out, frames in."""

    def __init__(self, port, token, link="", tab=None):
        self.sock = socket.create_connection(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        query = "link=" + link + ("&tab=" + tab if tab else "")
        self.sock.sendall(
            (
                f"GET /socket?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Origin: http://127.0.0.1:{port}\r\nCookie: vivarium-token={token}\r\n\r\n"
            ).encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise SystemExit(f"not upgraded: {head[:200]!r}")

    def send(self, line):
        payload = line.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def message(self, limit=60):
        """The next text message, and its size in bytes; none within `limit` seconds ends the benchmark."""
        self.sock.settimeout(limit)
        try:
            while True:
                frame = self._frame()
                if frame is not None:
                    return json.loads(frame), len(frame)
                data = self.sock.recv(1 << 20)
                if not data:
                    raise SystemExit("the server closed a tab's connection")
                self.buffer += data
        except socket.timeout:
            raise SystemExit(f"no update within {limit} s")
        finally:
            self.sock.settimeout(None)

    def _frame(self):
        if len(self.buffer) < 2:
            return None
        length, offset = self.buffer[1] & 0x7F, 2
        if length == 126:
            if len(self.buffer) < 4:
                return None
            length, offset = int.from_bytes(self.buffer[2:4], "big"), 4
        elif length == 127:
            if len(self.buffer) < 10:
                return None
            length, offset = int.from_bytes(self.buffer[2:10], "big"), 10
        if len(self.buffer) < offset + length:
            return None
        frame = self.buffer[offset : offset + length]
        self.buffer = self.buffer[offset + length :]
        return frame

    def drain(self, quiet=0.3):
        """The messages that come until none has for `quiet` seconds, and their bytes."""
        messages, size = [], 0
        while True:
            frame = self._frame()
            if frame is not None:
                messages.append(json.loads(frame))
                size += len(frame)
                continue
            self.sock.settimeout(quiet)
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                data = None
            finally:
                self.sock.settimeout(None)
            if not data:
                return messages, size
            self.buffer += data

    def until(self, wanted, limit=60):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            update, size = self.message()
            if wanted(update):
                return update, size
        raise SystemExit("no update came that was wanted")


def whole_page_bytes(update):
    return len(json.dumps(update.get("page"), separators=(",", ":")).encode()) if update.get("page") else None


def main():
    vivarium, plugins, work = sys.argv[1:4]
    most = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    data = os.path.join(work, "serve-data")
    subprocess.run(["rm", "-rf", data])
    env = dict(os.environ, VIVARIUM_HTTP="replay:" + os.path.abspath("Plugins/demo-http"))
    server = subprocess.Popen(
        [vivarium, "serve", "--plugins", plugins, "--data", data, "--port", "0", "--allow", "WeatherPlugin"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    try:
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)", line)
        if not match:
            raise SystemExit(f"vivarium serve printed no address: {line!r}")
        port, token = int(match.group(1)), match.group(2)

        # Signed in once: the setting is the host's, every tab after opens the dashboard.
        first = Tab(port, token)
        first.until(lambda u: u.get("link") == "login:form")
        for step in ["type user ada", "type password lovelace", "tap signIn"]:
            first.send(step)
        first.until(lambda u: (u.get("link") or "").startswith("dashboard:home"))

        print("Bytes a tab is sent (products:search; the whole page after each step beside it):")
        tab = Tab(port, token, link="products%3Asearch")
        update, size = tab.until(lambda u: u.get("link") == "products:search")
        print(f"  first page                      {size:>6} bytes")
        steps = [("tap next", "the next page of five rows"), ("type query mug", "a letter typed"),
                 ("select results 6", "a row made a favourite"), ("tap previous", "the page before")]
        tab.drain()
        for line_sent, what in steps:
            tab.send(line_sent)
            messages, size = tab.drain()
            print(f"  {what:<31} {size:>6} bytes in {len(messages)} update(s)")
        whole = Tab(port, token, link="products%3Asearch")
        _, whole_size = whole.until(lambda u: u.get("link") == "products:search")
        print(f"  (the whole page, for comparison {whole_size:>6} bytes)")

        print("A step's round trip, line sent to update read (µs, median (min-max) of 200):")
        times = []
        tab.drain()
        for index in range(200):
            start = time.perf_counter()
            tab.send("tap next" if index % 2 == 0 else "tap previous")
            tab.message()
            times.append((time.perf_counter() - start) * 1e6)
            tab.drain(0.05)
        print(f"  products:search next/previous   {statistics.median(times):>6.0f} ({min(times):.0f}-{max(times):.0f})")

        print("Memory per tab, each signed in on the dashboard (KB of proportional set size: host, plugin processes):")
        tabs = [first, tab, whole]
        baseline = None
        for count in [1, 48, most - 2]:
            while len(tabs) < count + 2:
                new = Tab(port, token, link="dashboard%3Ahome%3Fuser%3Dada")
                new.until(lambda u: (u.get("link") or "").startswith("dashboard:home"))
                tabs.append(new)
            time.sleep(1)
            host = pss_kb(server.pid)
            plugins_kb = sum(pss_kb(p) for p in descendants(server.pid))
            if baseline is None:
                baseline = (host, plugins_kb, len(tabs))
                print(f"  {len(tabs):>5} tabs: host {host} KB, plugin processes {plugins_kb} KB")
            else:
                added = len(tabs) - baseline[2]
                per_host = (host - baseline[0]) / added
                per_plugins = (plugins_kb - baseline[1]) / added
                print(f"  {len(tabs):>5} tabs: {per_host + per_plugins:.1f} KB per tab added ({per_host:.1f}, {per_plugins:.1f})")
    finally:
        server.terminate()
        server.wait()


main()
