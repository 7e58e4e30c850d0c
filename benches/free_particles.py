#!/usr/bin/env python3
"""A planar scene of N free particles (one island each), 1 ms long, on stdout.

For measuring what a run holds and costs per body when nothing couples
the bodies (docs/benchmarks.md):

    python3 benches/free_particles.py 20000 > particles.toml
    /usr/bin/time -f "%e s, %M KB" cargo run --release -- simulate particles.toml > /dev/null
"""

import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    out = ['[scene]\nname = "particles"\ndimension = 2\ngravity = [0.0, -9.81]\nduration = 0.001\noutput_every = 0.001\n']
    for i in range(n):
        out.append(
            f'[[body]]\nname = "p{i}"\nkind = "particle"\nmass = 1.0\n'
            f"position = [{i * 0.01}, 1.0]\nvelocity = [0.0, {i % 7 * 0.1}]\n"
        )
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
