"""Measures, for the record (not a test):

1. the cost of ``zwang.solve`` from Python on small instants against the
   Rust call it wraps (``zwang::answer::solve`` timed in a Rust loop):
   the bar is ``python <= 2 * rust + 5 us``;
2. a sweep of a few hundred short scene runs on a Dask ``LocalCluster``
   of two worker processes against one (the bar: 1.6x faster), and that
   both equal the local sweep row for row.

    python crates/zwang-py/benches/measure.py [--runs 300] [--no-dask]
"""

import pathlib
import sys
import time

import numpy as np

import zwang
from zwang import _zwang

REPO = pathlib.Path(__file__).resolve().parents[3]


def best_per_call(f, reps, rounds=7):
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(reps):
            f()
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def solve_overhead():
    instants = {
        "particle on the floor (n=2, 1 row)": zwang.Instant(
            mass=np.diag([2.0, 2.0]), force=np.array([1.0, -19.62]),
            inequalities=(np.array([[0.0, 1.0]]), np.array([0.0]))),
        "examples/pendulum.json": zwang.Instant.from_file(REPO / "examples" / "pendulum.json"),
        "examples/contact.json": zwang.Instant.from_file(REPO / "examples" / "contact.json"),
    }
    print("solve: Python call against the Rust call (best of 7 rounds)")
    for name, inst in instants.items():
        reps = 20000
        rust = min(_zwang._time_solve(inst._native, reps) for _ in range(7))
        python = best_per_call(lambda: zwang.solve(inst), reps)
        bar = 2 * rust + 5e-6
        print(f"  {name:38s} rust {rust * 1e6:7.2f} us  python {python * 1e6:7.2f} us  "
              f"overhead {(python - rust) * 1e6:5.2f} us  bar {bar * 1e6:6.2f} us  "
              f"{'ok' if python <= bar else 'MISSED'}")


def dask_speedup(runs):
    import logging
    from dask.distributed import Client, LocalCluster

    # An event-driven scene: one run is one thread (the time stepper's
    # contact solver already spreads one run over the cores, so a scene
    # like boxes_into_bin gains little from more workers on 2 cores).
    scene = zwang.Scene.from_file(REPO / "examples" / "scenes" / "rocking_block.toml")
    base = scene.duration
    grid = {"scene.duration": [base * (1.0 + 2.0 * k / runs) for k in range(runs)]}
    outputs = ["status", "time", "final.block.position", "steps"]
    start = time.perf_counter()
    zwang.sweep(scene, grid, outputs=outputs, threads=1)
    one = time.perf_counter() - start
    start = time.perf_counter()
    local = zwang.sweep(scene, grid, outputs=outputs)
    print(f"sweep of {runs} scene runs (rocking_block, {base} to {3 * base} s each):")
    print(f"  local, one thread:            {one:6.2f} s")
    print(f"  local, threads on every core: {time.perf_counter() - start:6.2f} s")
    times = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            zwang.sweep(scene, {"scene.duration": [0.1, 0.2]}, client=client)  # warm up
            start = time.perf_counter()
            rows = zwang.sweep(scene, grid, outputs=outputs, client=client)
            times[workers] = time.perf_counter() - start
            assert rows == local, "the cluster's rows differ from the local sweep's"
        print(f"  LocalCluster, {workers} worker(s):        {times[workers]:6.2f} s  (rows equal the local sweep's)")
    print(f"  speed-up 2 workers / 1 worker: {times[1] / times[2]:.2f}x (bar 1.6x)")


if __name__ == "__main__":
    solve_overhead()
    if "--no-dask" not in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 300
        dask_speedup(runs)
