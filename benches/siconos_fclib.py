#!/usr/bin/env python3
"""zwang against Siconos on FCLIB's HDF5 problems in space, same run.

For each FCLIB file given (local or global form, 3 components per
contact), runs Siconos' solvers (local form: PROX and NSGS through
`fc3d_driver`, `W` dense and in Siconos' sparse storage; global form: its local form W = H^T M^-1 H, q = H^T M^-1 f +
w, formed here, then the same solvers; the reformulation is not timed)
and `zwang contact FILE --json --out ...`, each to the same tolerance, and
prints per solver the wall time of the solve (best of REPEATS), the
iterations and Siconos' local error, recomputed here from each answer's
`r` (u = W r + q from the file's data):

    ||r - P_K(r - (u + mu |u_T| e_N))|| / max(||q||, ||r||, ||u||)

For the global form zwang reports Siconos' global measure
(`gfc3d_compute_error`); the script prints the local one of zwang's `r` on
the reformulated problem beside Siconos', so that the columns compare.

    python3 benches/siconos_fclib.py [--tolerance 1e-8] [--repeats 5] [--finish-steps N]... FILE...

zwang runs with its default finish budget, then once more for each
`--finish-steps N` given (`zwang contact --finish-steps N`).

Needs Debian's `python3-siconos` and `python3-h5py` (run with the system's
python3) and a release build of zwang (`cargo build --release`); the
tests need neither.
"""
import argparse
import json
import math
import os
import subprocess
import tempfile
import time

import h5py
import numpy as np
import scipy.sparse as sp
import siconos.numerics as sn

ZWANG = os.environ.get("ZWANG", "target/release/zwang")


def matrix(group):
    m, n, nz = int(group["m"][0]), int(group["n"][0]), int(group["nz"][0])
    p, i, x = group["p"][()], group["i"][()], group["x"][()]
    if nz >= 0:
        return sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n)).tocsc()
    if nz == -1:
        return sp.csc_matrix((x, i, p), shape=(m, n))
    return sp.csr_matrix((x, i, p), shape=(m, n)).tocsc()


def local_form(path):
    """W (dense), q, mu of the file's problem, and its form."""
    with h5py.File(path, "r") as f:
        if "fclib_local" in f:
            g = f["fclib_local"]
            w = matrix(g["W"]).toarray()
            return w, g["vectors/q"][()], g["vectors/mu"][()], "local"
        g = f["fclib_global"]
        m, h = matrix(g["M"]), matrix(g["H"])
        lu = sp.linalg.splu(m.tocsc())
        minv_h = lu.solve(h.toarray())
        w = h.T.toarray() @ minv_h
        q = h.T @ lu.solve(g["vectors/f"][()]) + g["vectors/w"][()]
        return w, q, g["vectors/mu"][()], "global"


def error(mu, q, r, u):
    total = 0.0
    for c, m in enumerate(mu):
        rc, uc = r[3 * c:3 * c + 3], u[3 * c:3 * c + 3]
        x = rc - uc - np.array([m * math.hypot(uc[1], uc[2]), 0.0, 0.0])
        t = math.hypot(x[1], x[2])
        if t <= m * x[0]:
            p = x
        elif m * t <= -x[0]:
            p = np.zeros(3)
        else:
            a = (x[0] + m * t) / (1 + m * m)
            p = np.array([a, m * a * x[1] / t, m * a * x[2] / t])
        total += float(np.sum((rc - p) ** 2))
    scale = max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u))
    return math.sqrt(total) / (scale if scale > 0 else 1.0)


def siconos(w, q, mu, solver, tolerance, repeats, storage):
    n = len(q)
    if storage == "dense":
        problem = sn.FrictionContactProblem(3, np.ascontiguousarray(w), q, mu)
    else:
        # Siconos' sparse storage, with its 64-bit indices.
        sparse = sp.csc_matrix(w)
        sparse.indices = sparse.indices.astype(np.int64)
        sparse.indptr = sparse.indptr.astype(np.int64)
        problem = sn.FrictionContactProblem(3, sparse, q, mu)
    best = None
    for _ in range(repeats):
        options = sn.SolverOptions(solver)
        options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 100_000
        options.dparam[sn.SICONOS_DPARAM_TOL] = tolerance
        r, u = np.zeros(n), np.zeros(n)
        start = time.perf_counter()
        info = sn.fc3d_driver(problem, r, u, options)
        seconds = time.perf_counter() - start
        if best is None or seconds < best[0]:
            iterations = options.iparam[sn.SICONOS_IPARAM_ITER_DONE]
            best = (seconds, info, iterations, error(mu, q, r, w @ r + q))
    return best


def zwang(path, w, q, mu, tolerance, repeats, finish_steps):
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "solution.json")
        for _ in range(repeats):
            run = subprocess.run(
                [ZWANG, "contact", path, "--json", "--tolerance", repr(tolerance), "--out", out]
                + [f"--finish-steps={n}" for n in finish_steps],
                capture_output=True,
                text=True,
            )
            report = json.loads(run.stdout)
            with open(out) as f:
                answer = json.load(f)
            seconds = report["time_us"] * 1e-6
            if best is None or seconds < best[0]:
                best = (seconds, run.returncode, report, answer)
    seconds, code, report, answer = best
    r = np.array(answer["r"])
    return seconds, code, report, error(mu, q, r, w @ r + q)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--tolerance", type=float, default=1e-8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--finish-steps", type=int, action="append", default=[])
    args = parser.parse_args()
    solvers = [
        ("Siconos PROX", sn.SICONOS_FRICTION_3D_PROX),
        ("Siconos NSGS", sn.SICONOS_FRICTION_3D_NSGS),
    ]
    print(f"tolerance {args.tolerance:g}, best of {args.repeats}; error: Siconos' local measure")
    print(f"{'file':34} {'solver':20} {'time':>12} {'iterations':>10} {'error':>10}  status")
    for path in args.files:
        name = os.path.basename(path)
        w, q, mu, form = local_form(path)
        for steps in [[]] + [[n] for n in args.finish_steps]:
            seconds, code, report, err = zwang(path, w, q, mu, args.tolerance, args.repeats, steps)
            status = "solved" if code == 0 else f"exit {code}"
            own = f" (its {form} measure {report['error']:.2e})" if form == "global" else ""
            label = "zwang" + "".join(f" finish {n}" for n in steps)
            print(f"{name:34} {label:20} {seconds * 1e3:9.3f} ms {report['iterations']:>10} "
                  f"{err:10.2e}  {status}{own}")
        for label, solver in solvers:
            for storage in ("dense", "sparse"):
                seconds, info, iterations, err = siconos(
                    w, q, mu, solver, args.tolerance, args.repeats, storage
                )
                status = "solved" if info == 0 else f"info {info}"
                print(f"{name:34} {label + ' ' + storage:20} {seconds * 1e3:9.3f} ms "
                      f"{iterations:>10} {err:10.2e}  {status}")


if __name__ == "__main__":
    main()
