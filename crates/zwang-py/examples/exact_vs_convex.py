"""Exact Coulomb friction against its convex relaxation, over a grid of scenes.

A box rests on a 20 degree incline (``examples/scenes/contact/
box_cone_edge.toml``, time-stepped), friction ``mu`` near the cone's edge
``tan 20 deg = 0.364``. The sweep runs every ``mu`` under both laws
(``solver.friction = "exact"`` and ``"convex"``) on every core (or on a
Dask cluster: pass ``--dask`` for a local one of two workers) and prints,
per ``mu``, how far the box went down the slope under each law and how
far it left the incline: the exact law sticks above the edge and slides
below it; the convex law's sliding contacts glide off their surface by
``mu |u_T|`` per unit time (the relaxation's known artifact).

    python exact_vs_convex.py [--dask] [--cells N]
"""

import math
import pathlib
import sys

import numpy as np

import zwang

SCENE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "scenes" / "contact" / "box_cone_edge.toml"


def main():
    cells = int(sys.argv[sys.argv.index("--cells") + 1]) if "--cells" in sys.argv else 9
    scene = zwang.Scene.from_file(SCENE)
    start = scene.to_dict()["body"][1]["position"]
    slope = math.radians(20.0)
    down = np.array([-math.cos(slope), -math.sin(slope)])
    normal = np.array([-math.sin(slope), math.cos(slope)])
    mus = np.round(np.linspace(0.30, 0.42, cells), 4)
    sets = [{"scene.duration": 1.0, "solver.friction": law,
             "body.box.friction": float(mu), "body.incline.friction": float(mu)}
            for mu in mus for law in ("exact", "convex")]
    client = None
    if "--dask" in sys.argv:
        from dask.distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    rows = zwang.sweep(scene, sets, outputs=["status", "final.box.position"], client=client)
    print(f"{'mu':>7} {'exact: down the slope':>22} {'convex: down the slope':>23} {'convex: off the incline':>24}")
    for k, mu in enumerate(mus):
        exact, convex = rows[2 * k], rows[2 * k + 1]
        moved = [np.array(r["final.box.position"]) - start for r in (exact, convex)]
        print(f"{mu:7.4f} {moved[0] @ down:22.6f} {moved[1] @ down:23.6f} "
              f"{moved[1] @ normal - moved[0] @ normal:24.6f}")
    if client is not None:
        client.close()


if __name__ == "__main__":
    main()
