#!/usr/bin/env python3
"""zwang against Siconos on planar frictional contact problems, same run.

For each local-form Siconos text file given, runs Siconos' planar solvers
(NSGS, CPG, Lemke; `fc2d_driver`, W converted to dense storage as the
driver requires) and `zwang contact FILE --json --out ...`, each to the same
tolerance, and prints per solver: the wall time of the solve (best of
REPEATS), the iterations, and one error measure for all, recomputed here
from each answer's `r` and `u` (Siconos' normalised natural-map residual
with De Saxce's velocity, as `zwang contact` reports it):

    ||r - P_K(r - (u + mu |u_T| e_N))|| / max(||q||, ||r||, ||u||)

    python3 benches/siconos_contact.py [--tolerance 1e-8] [--repeats 3] [--solvers nsgs,cpg,lemke] FILE...

(Lemke's method is dense: leave it out past a few hundred contacts.)

Needs Siconos' Python module (`apt-get install python3-siconos`, run with
the system's python3) and a release build of zwang (`cargo build
--release`); the tests do not need either. zwang's time is its own
`time_us` (the solve without reading the file); Siconos' is measured around
`fc2d_driver`.
"""
import argparse
import json
import math
import os
import subprocess
import tempfile
import time

import numpy as np
import siconos.numerics as sn

ZWANG = os.environ.get("ZWANG", "target/release/zwang")


def project(mu, n, t):
    if abs(t) <= mu * n:
        return n, t
    if n <= -mu * abs(t):
        return 0.0, 0.0
    s = math.copysign(1.0, t)
    along = (n + mu * s * t) / (1.0 + mu * mu)
    return along, mu * s * along


def error(mu, q, r, u):
    total = 0.0
    for i, m in enumerate(mu):
        rn, rt, un, ut = r[2 * i], r[2 * i + 1], u[2 * i], u[2 * i + 1]
        pn, pt = project(m, rn - (un + m * abs(ut)), rt - ut)
        total += (rn - pn) ** 2 + (rt - pt) ** 2
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return math.sqrt(total) / (scale if scale > 0 else 1.0)


def siconos(path, solver, tolerance, repeats):
    problem = sn.frictionContact_new_from_filename(path)
    n = problem.dimension * problem.numberOfContacts
    q, mu = np.array(problem.q), np.array(problem.mu)
    if problem.M.storageType != sn.NM_DENSE:
        dense = sn.NM_create(sn.NM_DENSE, n, n)
        sn.NM_to_dense(problem.M, dense)
        problem = sn.FrictionContactProblem(problem.dimension, dense, q, mu)
    best = None
    for _ in range(repeats):
        options = sn.SolverOptions(solver)
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 1_000_000
        options.dparam[sn.SICONOS_DPARAM_TOL] = tolerance
        r, u = np.zeros(n), np.zeros(n)
        start = time.perf_counter()
        info = sn.fc2d_driver(problem, r, u, options)
        seconds = time.perf_counter() - start
        if best is None or seconds < best[0]:
            iterations = options.iparam[sn.SICONOS_IPARAM_ITER_DONE]
            best = (seconds, info, iterations, error(mu, q, r, u))
    return best


def zwang(path, tolerance, repeats):
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "solution.json")
        for _ in range(repeats):
            run = subprocess.run(
                [ZWANG, "contact", path, "--json", "--tolerance", repr(tolerance), "--out", out],
                capture_output=True,
                text=True,
            )
            report = json.loads(run.stdout)
            with open(out) as f:
                answer = json.load(f)
            seconds = report["time_us"] * 1e-6
            if best is None or seconds < best[0]:
                best = (seconds, run.returncode, report["iterations"], answer)
    problem = sn.frictionContact_new_from_filename(path)
    q, mu = np.array(problem.q), np.array(problem.mu)
    seconds, code, iterations, answer = best
    return seconds, code, iterations, error(mu, q, np.array(answer["r"]), np.array(answer["u"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tolerance", type=float, default=1e-8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--solvers", default="nsgs,cpg,lemke")
    args = parser.parse_args()
    known = {
        "nsgs": ("Siconos NSGS", sn.SICONOS_FRICTION_2D_NSGS),
        "cpg": ("Siconos CPG", sn.SICONOS_FRICTION_2D_CPG),
        "lemke": ("Siconos Lemke", sn.SICONOS_FRICTION_2D_LEMKE),
    }
    wanted = [name.strip() for name in args.solvers.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in known]
    if unknown:
        parser.error(f"--solvers: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    solvers = [known[name] for name in wanted]
    print(f"tolerance {args.tolerance:g}, best of {args.repeats}")
    print(f"{'file':44} {'solver':14} {'time':>12} {'iterations':>10} {'error':>10}  status")
    for path in args.files:
        name = os.path.basename(path)
        seconds, code, iterations, err = zwang(path, args.tolerance, args.repeats)
        status = "solved" if code == 0 else f"exit {code}"
        print(f"{name:44} {'zwang':14} {seconds * 1e3:9.3f} ms {iterations:>10} {err:10.2e}  {status}")
        for label, solver in solvers:
            seconds, info, iterations, err = siconos(path, solver, args.tolerance, args.repeats)
            status = "solved" if info == 0 else f"info {info}"
            print(f"{name:44} {label:14} {seconds * 1e3:9.3f} ms {iterations:>10} {err:10.2e}  {status}")


if __name__ == "__main__":
    main()
