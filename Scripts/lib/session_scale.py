#!/usr/bin/env python3
"""A person's session at scale (issue 27): the cost of a command at the
1,000th, 10,000th and 100,000th command of its kind, side by side.

One `vivarium run --script` session (release build, plugins in processes of
their own, a fresh data directory) opens login:form, then pushes items:list
N times, opens login:form over them and taps its signIn N times with empty
fields (each tap redraws the form with its error; the stack N + 2 deep),
then goes back N + 1 times (the 1,000th back pops the screen N - 998 deep). Each command's time is the time from its echo (`> open
items:list`) to the next one, read as the host writes them; its bytes are
what it printed. For each mark (1k, 10k, 100k, up to N) the figures are the
median (min-max) of the 200 commands before it. Run in line mode and with
--json. Asserts nothing.

  session_scale.py VIVARIUM PLUGINS WORKDIR [N]
"""
import os
import statistics
import subprocess
import sys
import time

vivarium, plugins, work = sys.argv[1:4]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 10_000
window = 200
marks = [mark for mark in (1_000, 10_000, 100_000) if mark < count] + [count]
phases = ["open items:list", "tap signIn", "back"]

script = os.path.join(work, f"session{count}.vivarium")
with open(script, "w") as file:
    file.write("open login:form\n" + "open items:list\n" * count + "open login:form\n")
    file.write("tap signIn\n" * count + "back\n" + "back\n" * count)


def run(json):
    """Times and bytes of each command, in order, and the whole run's seconds."""
    data = os.path.join(work, f"session-data-{'json' if json else 'line'}")
    subprocess.run(["rm", "-rf", data], check=True)
    arguments = [vivarium, "run", "--plugins", plugins, "--data", data, "--script", script]
    environment = dict(os.environ, VIVARIUM_NOW="2026-11-21T12:00:00Z", COLUMNS="80")
    host = subprocess.Popen(
        arguments + (["--json"] if json else []), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=environment, bufsize=0)
    marker = b'{"command":' if json else b"> "
    stamps, sizes, commands = [], [], []
    started = time.monotonic()
    for line in host.stdout:
        if line.startswith(marker):
            stamps.append(time.monotonic())
            sizes.append(0)
            commands.append(line[len(marker):].split(b'"')[1 if json else 0].strip().decode())
        if sizes:
            sizes[-1] += len(line)
    host.wait()
    stamps.append(time.monotonic())
    return [b - a for a, b in zip(stamps, stamps[1:])], sizes, commands, time.monotonic() - started


def figure(values, scale, unit):
    return f"{statistics.median(values) * scale:8.2f} {unit} ({min(values) * scale:.2f}-{max(values) * scale:.2f})"


for json in (False, True):
    times, sizes, commands, total = run(json)
    mode = "--json" if json else "line mode"
    print(f"{mode}: {len(commands):,} commands in {total:.1f} s")
    print(f"  {'command':<24}{'time per command, ms':<32}bytes printed per command")
    for command in phases:
        steps = [index for index, given in enumerate(commands) if given == command]
        for mark in marks:
            if mark > len(steps):
                continue
            chosen = steps[mark - window:mark]
            label = f"{command} #{mark:,}"
            print(f"  {label:<24}{figure([times[i] for i in chosen], 1e3, 'ms'):<32}"
                  f"{figure([sizes[i] for i in chosen], 1, 'B')}")
