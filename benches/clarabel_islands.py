#!/usr/bin/env python3
"""Clarabel (interior point) on the convex relaxation of islands written as text.

The islands of docs/island-format.md, each's convex relaxation (`u in K*`,
no `mu |u_T|` term) as Clarabel's second-order cone program over the
velocities: minimise `1/2 v^T M v - f^T v` with `(u_N, mu u_T)` in the
cone, `u = J v + b`; the impulses from its dual, `r = (z_0, mu z_T)`.
Printed per island: Clarabel's status, the convex natural-map residual
recomputed from `r` and `u` (as `benches/siconos_islands.py` measures,
normalised as zwang's measure is) and the dynamics residual; then how
many meet each island's own tolerance (item 12 of the file, else 1e-10).
With `--exact ROUNDS`, exact Coulomb friction instead, by De Saxce's
fixed point: each round the convex problem with `s = mu |u_T|` from the
round before added to the normal velocity (Acary, Cadoux, Lemarechal and
Malick, "A formulation of the linear discrete Coulomb friction problem
via convex optimization", 2011), measured with De Saxce's velocity.
This says whether a tolerance is within an interior point's reach on
these problems, not how fast either is.

    python3 benches/clarabel_islands.py [--tolerance X] [--ipm-tolerance 1e-14] [--exact ROUNDS] FILE_OR_DIRECTORY...

Needs `pip install clarabel numpy scipy`; the tests do not need it.
"""

import argparse
import os

import clarabel
import numpy as np
import scipy.sparse as sparse

from siconos_islands import island_files, local_form, measure, read_island


def solve_convex(mass, force, jacobian, b, mu, slip, tolerance):
    """Clarabel on the convex problem with `slip` added to each normal
    velocity's free term: `(v, r, status)`."""
    k = len(mu)
    # (u_N + slip, mu u_T) in the second-order cone; r = (z_0, mu z_T).
    scale = np.column_stack([np.ones(k), mu, mu]).reshape(-1)
    shifted = b.copy()
    shifted[0::3] += slip
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    for name in ("tol_gap_abs", "tol_gap_rel", "tol_feas", "tol_ktratio"):
        setattr(settings, name, tolerance)
    solver = clarabel.DefaultSolver(
        sparse.csc_matrix(np.triu(mass)),
        -force,
        sparse.csc_matrix(-(scale[:, None] * jacobian)),
        scale * shifted,
        [clarabel.SecondOrderConeT(3)] * k,
        settings,
    )
    solution = solver.solve()
    return np.array(solution.x), scale * np.array(solution.z), str(solution.status)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--tolerance", type=float, help="default: the file's own, else 1e-10")
    parser.add_argument("--ipm-tolerance", type=float, default=1e-14)
    parser.add_argument(
        "--exact",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="exact Coulomb friction by De Saxce's fixed point: ROUNDS convex solves, "
        "each with s = mu |u_T| from the last (the best answer is measured)",
    )
    args = parser.parse_args()
    files = island_files(args.paths)
    met, statuses = 0, {}
    for path in files:
        mass, force, jacobian, b, mu, _, own = read_island(path)
        tolerance = args.tolerance or own or 1e-10
        _, q = local_form(mass, force, jacobian, b)
        slip, error = np.zeros(len(mu)), np.inf
        for _ in range(max(args.exact, 1)):
            v, r, status = solve_convex(mass, force, jacobian, b, mu, slip, args.ipm_tolerance)
            u = jacobian @ v + b
            now = measure(mu, q, r, u, exact=args.exact > 0)
            if now < error:
                error, best = now, (v, r)
            if error <= tolerance:
                break
            slip = mu * np.hypot(u[1::3], u[2::3])
        v, r = best
        dynamics = np.linalg.norm(mass @ v - force - jacobian.T @ r) / max(np.linalg.norm(force), 1e-300)
        statuses[status] = statuses.get(status, 0) + 1
        met += error <= tolerance
        print(
            f"{os.path.basename(path)}: {status}, measure {error:.2e} (tolerance {tolerance:.0e}), "
            f"dynamics {dynamics:.1e}, {len(mu)} contacts",
            flush=True,
        )
    print(f"{met} of {len(files)} meet their tolerance; Clarabel's statuses: {statuses}")


if __name__ == "__main__":
    main()
