"""Holds ViperKit's public API against its committed baseline.

Usage: sdk_api.py BASELINE.json CURRENT.json BASELINE_VERSION CURRENT_VERSION

BASELINE.json and CURRENT.json are `swift-api-digester -dump-sdk` outputs.
Exit 0 when the API is unchanged, or changed as the version allows:
  - a breaking change (a removed or changed declaration) needs a higher major;
  - an addition needs a higher minor (or major).
Exit 1 otherwise, naming each declaration and the version to raise.
"""
import json
import subprocess
import sys


def declarations(path):
    """Maps each declaration's USR to its printed name."""
    found = {}

    def walk(node, parent):
        usr = node.get("usr")
        name = node.get("printedName", node.get("name", ""))
        if usr and node.get("declKind") != "Import":
            found[usr] = f'{node.get("declKind", node.get("kind"))} {parent}{name}'
        prefix = f"{parent}{name}." if node.get("kind") == "TypeDecl" else parent
        for child in node.get("children", []):
            walk(child, prefix)

    with open(path) as handle:
        walk(json.load(handle)["ABIRoot"], "")
    return found


def breaking(baseline, current):
    """What swift-api-digester reports as breaking, one line each."""
    result = subprocess.run(
        ["swift-api-digester", "-diagnose-sdk", "-input-paths", baseline, "-input-paths", current],
        capture_output=True, text=True, check=False)
    lines = (result.stdout + result.stderr).splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("/*")]


def version(text):
    major, minor, patch = (int(part) for part in text.split("."))
    return major, minor, patch


def main(baseline, current, baseline_version, current_version):
    old, new = version(baseline_version), version(current_version)
    broken = breaking(baseline, current)
    before, after = declarations(baseline), declarations(current)
    removed = sorted(before[usr] for usr in before.keys() - after.keys())
    added = sorted(after[usr] for usr in after.keys() - before.keys())
    broken += [f"removed: {name}" for name in removed if not any(name.split(" ", 1)[-1] in b for b in broken)]

    if broken and new[0] <= old[0]:
        print(f"ViperKit's public API has breaking changes against its {baseline_version} baseline:")
        for line in broken:
            print(f"  {line}")
        print(f"Raise VIPERKIT_VERSION_MAJOR in Host/SDK/Sources/CViperKit/include/ViperKitABI.h "
              f"(to {old[0] + 1}.0.0), or undo the change. Plugins built against {baseline_version} "
              "would crash or fail to load.")
        return 1
    if added and not broken and new[:2] <= old[:2]:
        print(f"ViperKit's public API has additions against its {baseline_version} baseline:")
        for name in added:
            print(f"  added: {name}")
        print(f"Raise VIPERKIT_VERSION_MINOR in Host/SDK/Sources/CViperKit/include/ViperKitABI.h "
              f"(to {old[0]}.{old[1] + 1}.0): hosts older than this SDK must refuse plugins that use them.")
        return 1
    if broken or added:
        print(f"ViperKit {current_version}: {len(added)} additions, {len(broken)} breaking changes "
              f"against {baseline_version}, allowed by the version. Record the new baseline with "
              "'Scripts/check-sdk-api --update' when releasing.")
    else:
        print(f"ViperKit {current_version}: public API unchanged against its {baseline_version} baseline.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
