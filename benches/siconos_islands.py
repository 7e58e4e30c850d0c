#!/usr/bin/env python3
"""Siconos' 3D solvers on islands written as text (docs/island-format.md).

The islands a run left unsolved (written where `ZWANG_DUMP_UNSOLVED` names
a directory, see `examples/solve_islands.rs`) are velocity-level problems
`M v = f + J^T r`, `u = J v + b`. Here each is turned into Siconos' local
form, `W = J M^-1 J^T` and `q = J M^-1 f + b` (dense: islands of a few
hundred contacts), and solved by `fc3d_driver` from the island's warm
start with each solver asked for, to the same tolerance. Printed per
island and solver, to the island's own tolerance (item 12 of the file;
`--tolerance` overrides it): Siconos' status (`info`, 0 when it met the
tolerance), its iterations and its own error, the wall time of the solve,
and one measure for every solver, recomputed here from `r` and
`u = W r + q` (Siconos' natural-map residual with De Saxce's velocity,
normalised as zwang's measure is):

    ||r - P_K(r - (u + mu |u_T| e_N))|| / max(||q||, ||r||, ||u||)

    python3 benches/siconos_islands.py [--tolerance X] [--solvers NSGS,PROX,NSN_AC] [--iterations NSGS=3000,PROX=20,NSN_AC=300] FILE_OR_DIRECTORY...

Needs Siconos' Python module (`apt-get install python3-siconos`, run with
the system's python3); the tests do not need it.
"""

import argparse
import math
import os
import time

import numpy as np


def read_island(path):
    lines = [line for line in open(path) if not line.lstrip().startswith("#")]
    reals = lambda i: np.array([float(x) for x in lines[i].split()])
    whole = lambda i: [int(x) for x in lines[i].split()]
    start, rows, values = whole(0), whole(1), reals(2)
    n = len(start) - 1
    mass = np.zeros((n, n))
    for c in range(n):
        for a in range(start[c], start[c + 1]):
            mass[rows[a], c] = values[a]
    # An upper triangle stands for the symmetric matrix.
    if not np.any(np.tril(mass, -1)):
        mass = mass + np.triu(mass, 1).T
    force, d = reals(3), int(lines[4])
    contact_start, cols, entries = whole(5), whole(6), reals(7)
    b, mu, warm = reals(8), reals(9), reals(10)
    # Item 12, when written: the friction law, tolerance and finish steps.
    tolerance = float(lines[11].split()[1]) if len(lines) > 11 and lines[11].strip() else None
    jacobian = np.zeros((d * len(mu), n))
    for i in range(len(mu)):
        for a in range(contact_start[i], contact_start[i + 1]):
            for row in range(d):
                jacobian[d * i + row, cols[a]] += entries[d * a + row]
    if d != 3:
        raise SystemExit(f"{path}: {d} rows per contact; these are Siconos' 3D solvers")
    return mass, force, jacobian, b, mu, warm, tolerance


def island_files(paths):
    """The files given, and the `.txt` files of the directories given."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".txt"))
        else:
            files.append(path)
    return files


def local_form(mass, force, jacobian, b):
    """Siconos' local form: `W = J M^-1 J^T`, `q = J M^-1 f + b`."""
    inverse = np.linalg.inv(mass)
    return jacobian @ inverse @ jacobian.T, jacobian @ (inverse @ force) + b


def project(mu, r):
    """The projection on the cone |r_T| <= mu r_N."""
    n, t = r[0], r[1:]
    length = np.linalg.norm(t)
    if length <= mu * n:
        return r
    if mu * length <= -n:
        return np.zeros(3)
    along = (n + mu * length) / (1.0 + mu * mu)
    return np.concatenate(([along], mu * along * t / length))


def measure(mu, q, r, u, exact=True):
    """The natural-map residual (with De Saxce's velocity when `exact`)."""
    total = 0.0
    for i, m in enumerate(mu):
        ri, ui = r[3 * i : 3 * i + 3], u[3 * i : 3 * i + 3]
        w = ui + np.array([m * np.linalg.norm(ui[1:]) if exact else 0.0, 0.0, 0.0])
        total += np.sum((ri - project(m, ri - w)) ** 2)
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return math.sqrt(total) / (scale if scale > 0 else 1.0)


def main():
    # Here, so that `clarabel_islands.py` reads islands without Siconos.
    import siconos.numerics as sn

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--tolerance", type=float, help="default: the file's own, else 1e-10")
    parser.add_argument("--solvers", default="NSGS,PROX,NSN_AC")
    parser.add_argument("--iterations", default="NSGS=3000,PROX=20,NSN_AC=300")
    args = parser.parse_args()
    most = dict(item.split("=") for item in args.iterations.split(","))
    for path in island_files(args.paths):
        mass, force, jacobian, b, mu, warm, own = read_island(path)
        w, q = local_form(mass, force, jacobian, b)
        tolerance = args.tolerance or own or 1e-10
        for name in args.solvers.split(","):
            options = sn.SolverOptions(getattr(sn, "SICONOS_FRICTION_3D_" + name))
            options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = int(most.get(name, 1000))
            options.dparam[sn.SICONOS_DPARAM_TOL] = tolerance
            problem = sn.FrictionContactProblem(3, w, q, mu)
            r, u = warm.copy(), np.zeros(len(q))
            start = time.perf_counter()
            info = sn.fc3d_driver(problem, r, u, options)
            elapsed = time.perf_counter() - start
            u = w @ r + q
            print(
                f"{os.path.basename(path)} {name}: info {info}, "
                f"{options.iparam[sn.SICONOS_IPARAM_ITER_DONE]} iterations, "
                f"Siconos' error {options.dparam[sn.SICONOS_DPARAM_RESIDU]:.2e}, "
                f"measure {measure(mu, q, r, u):.2e} (tolerance {tolerance:.0e}), "
                f"{elapsed * 1e3:.0f} ms, {len(mu)} contacts",
                flush=True,
            )


if __name__ == "__main__":
    main()
