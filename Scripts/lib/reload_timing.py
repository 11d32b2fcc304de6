"""Time from saving a plugin's source to the app showing the change, for
`vivarium run --watch --build PACKAGE_DIR` on a scaffolded plugin: each run
edits the presenter's title, and the clock stops when the host's output shows
the new title after its reload notice. Beside it, the bare build: the same
edit followed by `swift build` alone. Prints the median (min-max) of each,
and each mode's median as a ratio to the bare build's.

    python3 reload_timing.py VIVARIUM PACKAGE_DIR PRESENTER_FILE URN RUNS
"""
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

vivarium, package, presenter, urn, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])


def read_until(process, words, limit=120):
    """Reads the host's output until every one of `words` has come after the start."""
    seen = b""
    deadline = time.monotonic() + limit
    while not all(w.encode() in seen for w in words):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([process.stdout], [], [], left)[0]:
            raise SystemExit(f"no {words} within {limit} s; last output: {seen[-500:]!r}")
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            raise SystemExit(f"the host ended; last output: {seen[-500:]!r}")
        seen += chunk
    return seen


def mode(extra):
    source = open(presenter).read()
    title = 'title: "Notes"' if 'title: "Notes"' in source else None
    data = tempfile.mkdtemp()
    process = subprocess.Popen(
        [vivarium, "run", "--watch", "--build", package, "--start", urn, "--data", data] + extra,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=dict(os.environ, COLUMNS="80"), start_new_session=True)
    try:
        read_until(process, ["Notes"])
        times = []
        current = "Notes"
        for run in range(runs):
            new = f"Edit {run} {extra}"
            text = open(presenter).read().replace(f'title: "{current}"', f'title: "{new}"')
            start = time.monotonic()
            with open(presenter, "w") as f:
                f.write(text)
            read_until(process, ["Reloaded", new])
            times.append(time.monotonic() - start)
            current = new
        return times
    finally:
        end(process)
        # Put back once the host and its builds are gone, so that no build
        # of this mode takes the next one's edits.
        open(presenter, "w").write(source)


def end(process):
    """Kills the host and every process of its session: a `swift build` it
    started has a process group of its own, and would outlive it."""
    for _ in range(100):
        subprocess.run(["pkill", "-KILL", "-s", str(process.pid)], capture_output=True)
        if subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True).returncode != 0:
            break
        time.sleep(0.05)
    process.wait()


def bare():
    """The same one-line edits, each followed by `swift build` alone."""
    source = open(presenter).read()
    subprocess.run(["swift", "build"], cwd=package, check=True, capture_output=True)
    times = []
    current = "Notes"
    for run in range(runs):
        new = f"Bare {run}"
        open(presenter, "w").write(source.replace(f'title: "{current}"', f'title: "{new}"'))
        start = time.monotonic()
        subprocess.run(["swift", "build"], cwd=package, check=True, capture_output=True)
        times.append(time.monotonic() - start)
    open(presenter, "w").write(source)
    return times


def show(label, times, floor=None):
    ratio = f", {statistics.median(times) / floor:.2f}× the bare build" if floor else ""
    print(f"  {label:<44} median {statistics.median(times):.2f} s "
          f"({min(times):.2f}–{max(times):.2f}), {len(times)} edits{ratio}")


for extra, label in (([], "out of process (default)"), (["--in-process"], "--in-process")):
    # The bare build just before each mode, so that a machine busier for a while is seen in both.
    floor = bare()
    show("bare swift build after the same edit", floor)
    show(f"save → redraw, {label}", mode(extra), statistics.median(floor))
