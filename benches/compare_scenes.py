#!/usr/bin/env python3
"""Every shipped scene run by two builds of `zwang`, their JSON compared.

For a change that must leave the answers as they were (a refactoring,
issue 33): build the command before and after, then

    python3 benches/compare_scenes.py OLD_ZWANG NEW_ZWANG

runs `zwang simulate SCENE --json` with each on every scene under
`examples/scenes/` (MJCF files with `--duration 1`) from the repository's
root, and compares the two answers value by value: strings and counts
must be equal, reals are compared by their relative difference. Times
spent (the keys naming seconds or stages) are left out. Prints a line per
scene (`same` when every value is equal to the bit) and the largest
difference; exits 1 when a scene differs beyond `--tolerance` (default
0: equal to the bit), or a run fails with one build and not the other.
"""

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TIMING = ("seconds", "stages", "elapsed", "wall")


def run(binary, scene):
    args = [binary, "simulate", str(scene.relative_to(ROOT)), "--json"]
    if scene.suffix == ".xml":
        args += ["--duration", "1"]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        return done.returncode, done.stdout + done.stderr


def differences(a, b, path=""):
    """(largest relative difference of reals, paths that differ otherwise)."""
    if isinstance(a, dict) and isinstance(b, dict):
        worst, other = 0.0, []
        for key in sorted(set(a) | set(b)):
            if any(word in key for word in TIMING):
                continue
            if key not in a or key not in b:
                other.append(f"{path}.{key} (in one only)")
                continue
            w, o = differences(a[key], b[key], f"{path}.{key}")
            worst, other = max(worst, w), other + o
        return worst, other
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return 0.0, [f"{path} ({len(a)} against {len(b)} entries)"]
        worst, other = 0.0, []
        for i, (x, y) in enumerate(zip(a, b)):
            w, o = differences(x, y, f"{path}[{i}]")
            worst, other = max(worst, w), other + o
        return worst, other
    if isinstance(a, float) and isinstance(b, (int, float)) or isinstance(b, float) and isinstance(a, (int, float)):
        if a == b:
            return 0.0, []
        return abs(a - b) / max(abs(a), abs(b), sys.float_info.min), []
    return (0.0, []) if a == b else (0.0, [f"{path} ({a!r} against {b!r})"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--tolerance", type=float, default=0.0)
    args = parser.parse_args()
    scenes = sorted(
        p for p in (ROOT / "examples" / "scenes").rglob("*") if p.suffix in (".toml", ".xml")
    )
    failed, largest = 0, 0.0
    for scene in scenes:
        (code_a, a), (code_b, b) = run(args.old, scene), run(args.new, scene)
        name = scene.relative_to(ROOT / "examples" / "scenes")
        if code_a != code_b or isinstance(a, str) or isinstance(b, str):
            same = code_a == code_b and a == b
            print(f"{name}: exit {code_a} against {code_b}{'' if same else ', output differs'}")
            failed += not same
            continue
        worst, other = differences(a, b)
        largest = max(largest, worst)
        if worst == 0.0 and not other:
            print(f"{name}: same")
        else:
            print(f"{name}: largest relative difference {worst:.1e}" + "".join(f"; {o}" for o in other[:3]))
        failed += worst > args.tolerance or bool(other)
    print(f"{len(scenes)} scenes, {failed} differ beyond {args.tolerance:g}; largest relative difference {largest:.1e}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
