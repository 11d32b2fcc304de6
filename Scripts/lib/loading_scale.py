"""Plugin loading at scale (issue 13), for Scripts/benchmark.

Generates N plugins (distinct copies of the `vivarium new` scaffold, each
with its own module name and URN, built with `swiftc -O` against the release
SDK), cached in .build/benchmark-plugins between runs; builds the bare dlopen
loop (Scripts/lib/BareLoop.swift); then prints, side by side, the wall time
of each command as a median with min-max and as a ratio to the bare loop over
the same files:
  cold scan   `vivarium plugins --rescan`, the cache rewritten: of plugins
              without a manifest (each probed) and with one;
  warm start  `vivarium routes`, the registry cache filled;
  render      `vivarium render items:list`, the cache filled (out of process).
Each directory holds the release ItemsList plugin and N-1 generated ones.
Then the warm start at the largest N against none, the two taken in turn;
`vivarium plugins` at 200 plugins, the cache filled, against the bare loop
over the same files, the two taken in turn; and what a warm start costs
inside the host at each N (Scripts/bench/LoadingBenchmark: the cache read,
the files looked up in it, the catalog and the text of `vivarium plugins`).

  python3 Scripts/lib/loading_scale.py RELEASE_DIR WORK_DIR
"""
import concurrent.futures
import os
import shutil
import statistics
import subprocess
import sys
import time

SIZES = [1, 10, 50, 200, 500]
RUNS = {1: 15, 10: 15, 50: 11, 200: 9, 500: 7}


def run(command, **kw):
    return subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def generate(release, vivarium, pool, sources, count, manifests=True):
    """Builds plugins Gen0..Gen{count-1} into pool (no manifest) and, unless
    not `manifests`, into pool/manifested (carrying the manifest their code
    makes), those not there already. Each manifest is the Swift file
    `vivarium manifest --swift` makes from the plugin built without one: what
    the build-tool plugin of a `vivarium new` package writes, without
    building a manifest tool per plugin.
    """
    manifested = f"{pool}/manifested"
    stamp = os.path.join(pool, "STAMP")
    identity = subprocess.run([vivarium, "--version"], capture_output=True, text=True).stdout
    if not os.path.exists(stamp) or open(stamp).read() != identity:
        shutil.rmtree(pool, ignore_errors=True)
        os.makedirs(manifested)
        open(stamp, "w").write(identity)
    missing = [i for i in range(count)
               if not (os.path.exists(f"{pool}/libGen{i}.so")
                       and (not manifests or os.path.exists(f"{manifested}/libGen{i}.so")))]
    if not missing:
        return
    os.makedirs(sources, exist_ok=True)
    twice = "twice, with and without a manifest, " if manifests else ""
    print(f"(building {len(missing)} plugins {twice}into {pool}, once)", flush=True)

    def build(i, output, extra=()):
        package = f"{sources}/Gen{i}"
        if not os.path.exists(package):
            run([vivarium, "new", f"Gen{i}", "--urn", f"gen{i}:list", "--dir", package])
        # The module's code and its entry point, compiled as one module.
        files = sorted(f"{package}/Sources/{folder}/{name}"
                       for folder in [f"Gen{i}", f"Gen{i}EntryPoint"]
                       for name in os.listdir(f"{package}/Sources/{folder}"))
        run(["swiftc", "-emit-library", "-O", "-module-name", f"Gen{i}", *swift_flags(release),
             "-Xlinker", f"--version-script={package}/exports.map", "-Xlinker", "-rpath=$ORIGIN", *files, *extra,
             "-o", output])

    def build_both(i):
        plain = f"{pool}/libGen{i}.so"
        if not os.path.exists(plain):
            build(i, plain)
        if not manifests:
            return
        source = f"{sources}/Gen{i}-manifest.swift"
        with open(source, "w") as out:
            subprocess.run([vivarium, "manifest", plain, "--swift"], check=True, stdout=out)
        build(i, f"{manifested}/libGen{i}.so", [source])

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as builders:
        list(builders.map(build_both, missing))
    for i in sorted({0, count // 2, count - 1}) if manifests else []:
        run([vivarium, "manifest", f"{manifested}/libGen{i}.so", "--check"])


def swift_flags(release):
    """Compiling and linking against the release SDK SwiftPM built in `release`."""
    modulemap = f"{os.path.realpath(release)}/CViperKit.build/module.modulemap"
    return ["-I", f"{release}/Modules", "-Xcc", f"-fmodule-map-file={modulemap}", "-L", release, "-lViperKit"]


def directory(path, pool, release, size):
    """path, holding the release ItemsList plugin and size-1 plugins from pool."""
    os.makedirs(path, exist_ok=True)
    os.chmod(path, 0o755)
    if size:
        shutil.copy(f"{release}/libItemsList.so", path)
    for i in range(size - 1):
        shutil.copy(f"{pool}/libGen{i}.so", path)
    return path


def timed(command, runs, env, before=None):
    times = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[0], times[-1]


def interleaved(commands, runs, env):
    """Times each of `commands` `runs` times, taking them in turn, so that a
    slower spell of the machine falls on all of them alike: for a ratio."""
    times = [[] for _ in commands]
    for _ in range(runs):
        for command, spent in zip(commands, times):
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            spent.append((time.perf_counter() - start) * 1000)
    return [(statistics.median(t), min(t), max(t)) for t in times]


def cell(figure, floor=None):
    median, low, high = figure
    text = f"{median:6.1f} ({low:.1f}-{high:.1f})"
    if floor:
        text += f" {median / floor[0]:4.1f}x"
    return text


def main():
    release, work = sys.argv[1], sys.argv[2]
    vivarium = f"{release}/vivarium"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    pool = os.path.join(root, ".build/benchmark-plugins")
    generate(release, vivarium, pool, f"{work}/src", max(SIZES) - 1)
    bare = f"{work}/bare-loop"
    run(["swiftc", "-O", *swift_flags(release), "-Xlinker", f"-rpath={release}",
         f"{root}/Scripts/lib/BareLoop.swift", "-o", bare])
    env = dict(os.environ, NO_COLOR="1", SWIFT_BACKTRACE="enable=no")
    env.pop("VIVARIUM_PLUGIN_PATH", None)
    columns = ["bare dlopen loop", "cold scan, probed", "cold scan, manifests", "warm start", "render items:list"]
    print(f"{'plugins':>7}  " + "  ".join(f"{name + ' ms, x bare':>28}" for name in columns))
    warm = {}
    for size in [0] + SIZES:
        plain = directory(f"{work}/plain-{size}", pool, release, size)
        plugins = directory(f"{work}/plugins-{size}", f"{pool}/manifested", release, size)
        data = f"{work}/data-{size}"
        runs = RUNS.get(size, 15)
        common = ["--plugins", plugins, "--data", data]
        loop = timed([bare, plugins], runs, env)
        probed = timed([vivarium, "plugins", "--rescan", "--plugins", plain, "--data", f"{work}/data-plain-{size}"],
                       runs, env)
        cold = timed([vivarium, "plugins", "--rescan", *common], runs, env)
        warm[size] = timed([vivarium, "routes", *common], runs, env)
        render = timed([vivarium, "render", "items:list", *common], runs, env) if size else None
        floor = loop if size else None
        cells = [cell(loop), cell(probed, floor), cell(cold, floor), cell(warm[size], floor)]
        cells += [cell(render, floor)] if render else []
        print(f"{size:>7}  " + "  ".join(f"{text:>28}" for text in cells), flush=True)
    largest = max(SIZES)
    runs = 21
    routes = [[vivarium, "routes", "--plugins", f"{work}/plugins-{size}", "--data", f"{work}/data-{size}"]
              for size in (0, largest)]
    none, most = interleaved(routes, runs, env)
    print(f"warm start at {largest} plugins against none, {runs} runs of each taken in turn: "
          f"{most[0] / none[0]:.2f}x ({cell(most).strip()} ms against {cell(none).strip()} ms)")
    listed_size = 200
    listing = [vivarium, "plugins", "--plugins", f"{work}/plugins-{listed_size}", "--data",
               f"{work}/data-{listed_size}"]
    listed, floor = interleaved([listing, [bare, f"{work}/plugins-{listed_size}"]], runs, env)
    print(f"vivarium plugins, {listed_size} plugins, warm: {cell(listed).strip()} ms against the bare dlopen loop "
          f"{cell(floor).strip()} ms: {listed[0] / floor[0]:.2f}x ({runs} runs of each taken in turn)")
    print("(cold scan: vivarium plugins --rescan; warm start: vivarium routes, the registry cache filled; "
          "render: vivarium render items:list, the cache filled. Each directory holds the ItemsList plugin and "
          "N-1 generated ones: carrying manifests, except in the probed column)")
    print()
    print("A warm start inside the host, its start left out (read: the registry cache; scan: every file looked up "
          "in it; plugins: the catalog and the text of `vivarium plugins` too)", flush=True)
    subprocess.run([f"{release}/loading-benchmark",
                    *[path for size in SIZES for path in (f"{work}/plugins-{size}", f"{work}/data-{size}")]],
                   check=True, env=env)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--generated"]:
        # --generated RELEASE_DIR WORK_DIR DIR N: DIR holding Gen0..Gen{N-1}, no manifests.
        release, work, target, count = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        pool = os.path.join(root, ".build/benchmark-plugins")
        generate(release, f"{release}/vivarium", pool, f"{work}/src", count, manifests=False)
        os.makedirs(target, exist_ok=True)
        os.chmod(target, 0o755)
        for i in range(count):
            shutil.copy(f"{pool}/libGen{i}.so", target)
    else:
        main()
