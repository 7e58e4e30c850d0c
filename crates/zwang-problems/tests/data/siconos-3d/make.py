#!/usr/bin/env python3
"""Writes the small problems in space of `tests/problems/siconos_space.rs` as
Siconos' text files, `W` in each of its three storages.

    python3 make.py            # writes the .dat files next to this script
    python3 make.py --check    # also reads each back with Siconos' Python
                               # module (Debian's python3-siconos) and
                               # compares W, q and mu, and Siconos' own
                               # fc3d_compute_error of the closed-form answers

The layout follows Siconos' writers (`frictionContact_printInFile`,
`NM_write_in_file`, `SBM_write_in_file`, `NSM_write_in_file` through
CSparse's `cs_print`). Every entry has at most six significant digits, so
CSparse's `%g` loses nothing and the storages hold the same matrix. The
tests do not run this script and do not need Siconos.

The problems (`d` = 3, contact by contact, normal first):

- `three_contacts`: three contacts on independent bodies (`W` block
  diagonal), each answer known in closed form:
  1. sticking: `W_1 = [[2,0,0],[0,1,0.5],[0,0.5,1]]`, `mu` 0.5,
     `q_1 = -W_1 r_1` for `r_1 = (1, 0.2, -0.1)` (`|r_T|` 0.224 < 0.5):
     `r_1` with `u_1 = 0`;
  2. sliding: `W_2 = I`, `mu` 0.5, `q_2 = (-1, 3, 4)`: `r_N = 1`, `r_T =
     -0.5 (0.6, 0.8)`, `u = (0, 2.7, 3.6)`;
  3. open: `W_3 = [[1,0.2,0],[0.2,1,0],[0,0,1]]`, `mu` 0.3, `q_3 = (0.5,
     -1, 2)`: `r_3 = 0`, `u_3 = q_3`.
- `coupled`: two contacts coupled through every block of `W` (a
  diagonally dominant symmetric `W`), no closed form: the storages must
  agree.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BANNER = "CSparse Version 3.2.0, Sept 12, 2017.  Copyright (c) Timothy A. Davis, 2006-2016"


def block_diagonal(blocks):
    n = 3 * len(blocks)
    w = [[0.0] * n for _ in range(n)]
    for k, b in enumerate(blocks):
        for i in range(3):
            for j in range(3):
                w[3 * k + i][3 * k + j] = b[i][j]
    return w


W1 = [[2.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.5, 1.0]]
R1 = [1.0, 0.2, -0.1]
Q1 = [-2.0, -0.15, 0.0]  # -W_1 r_1
W2 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
Q2 = [-1.0, 3.0, 4.0]
W3 = [[1.0, 0.2, 0.0], [0.2, 1.0, 0.0], [0.0, 0.0, 1.0]]
Q3 = [0.5, -1.0, 2.0]
THREE = {
    "w": block_diagonal([W1, W2, W3]),
    "q": Q1 + Q2 + Q3,
    "mu": [0.5, 0.5, 0.3],
    # The closed-form answer (r, u).
    "r": R1 + [1.0, -0.3, -0.4] + [0.0, 0.0, 0.0],
    "u": [0.0, 0.0, 0.0] + [0.0, 2.7, 3.6] + Q3,
}
COUPLED = {
    "w": [
        [2.0, 0.1, 0.0, 0.5, 0.0, 0.1],
        [0.1, 1.5, 0.2, 0.0, 0.3, 0.0],
        [0.0, 0.2, 1.5, 0.1, 0.0, 0.3],
        [0.5, 0.0, 0.1, 2.0, 0.1, 0.0],
        [0.0, 0.3, 0.0, 0.1, 1.5, 0.2],
        [0.1, 0.0, 0.3, 0.0, 0.2, 1.5],
    ],
    "q": [-1.0, 0.3, -0.2, -0.5, 1.0, 0.4],
    "mu": [0.6, 0.4],
}


def g(x):
    """C's %g."""
    return "%g" % x


def vector(xs):
    return "".join("%32.24e " % x for x in xs) + "\n"


def dense(w):
    n = len(w)
    out = "%d\t%d\n" % (n, n)
    for j in range(n):  # column-major: a column per line
        out += vector([w[i][j] for i in range(n)])
    return out


def sparse_block(w, blocksize=3):
    n = len(w)
    nb = n // blocksize
    blocks = []  # (block row, block column, entries column-major)
    for bi in range(nb):
        for bj in range(nb):
            entries = [
                w[bi * blocksize + i][bj * blocksize + j]
                for j in range(blocksize)
                for i in range(blocksize)
            ]
            if any(x != 0.0 for x in entries):
                blocks.append((bi, bj, entries))
    ends = "".join("%d\t" % ((k + 1) * blocksize) for k in range(nb)) + "\n"
    pointers = [0]
    for bi in range(nb):
        pointers.append(pointers[-1] + sum(1 for b in blocks if b[0] == bi))
    out = "%d\n%d\n%d\n" % (len(blocks), nb, nb)
    out += ends + ends
    out += "%d\n%d\n" % (nb + 1, len(blocks))
    out += "".join("%d\t" % p for p in pointers) + "\n"
    out += "".join("%d\t" % b[1] for b in blocks) + "\n"
    for k, (_, _, entries) in enumerate(blocks):
        out += "%d\n" % k
        out += "".join("%32.24e\n" % x for x in entries)
    return out


def csparse(w, origin):
    n = len(w)
    nz = [(i, j, w[i][j]) for j in range(n) for i in range(n) if w[i][j] != 0.0]
    norm1 = max(sum(abs(w[i][j]) for i in range(n)) for j in range(n))
    out = "%d\n%s\n" % (origin, BANNER)
    if origin == 1:
        out += "triplet: %s-by-%s, nzmax: %s nnz: %s\n" % (g(n), g(n), g(len(nz)), g(len(nz)))
        for i, j, x in sorted(nz):  # row by row, as a triplet list may be
            out += "    %s %s : %s\n" % (g(i), g(j), g(x))
        return out
    columns = origin == 2
    head = "" if columns else "csr: "
    out += "%s%s-by-%s, nzmax: %s nnz: %s, 1-norm: %s\n" % (
        head, g(n), g(n), g(len(nz)), g(len(nz)), g(norm1))
    word = "col" if columns else "row"
    at = 0
    for k in range(n):
        line = [(i, x) for (i, j, x) in nz if j == k] if columns else [
            (j, x) for (i, j, x) in sorted(nz) if i == k]
        out += "    %s %s : locations %s to %s\n" % (word, g(k), g(at), g(at + len(line) - 1))
        for index, x in line:
            out += "      %s : %s\n" % (g(index), g(x))
        at += len(line)
    return out


STORAGES = {
    "dense": (0, dense),
    "sbm": (1, sparse_block),
    "triplet": (2, lambda w: csparse(w, 1)),
    "csc": (2, lambda w: csparse(w, 2)),
    "csr": (2, lambda w: csparse(w, 3)),
}


def problem_text(p, storage):
    kind, write = STORAGES[storage]
    n = len(p["w"])
    out = "3\n%d\n%d\n%d\n%d\n" % (len(p["mu"]), kind, n, n)
    out += write(p["w"])
    out += vector(p["q"])
    out += vector(p["mu"])
    return out


def check(path, p, storage):
    import numpy as np
    import siconos.numerics as sn

    if storage == "csr":
        # Siconos 4.5's reader (NSM_new_from_file) refuses origin 3.
        print("%s: not read by Siconos (compressed rows)" % os.path.basename(path))
        return
    s = sn.frictionContact_new_from_filename(path)
    n = len(p["w"])
    assert (s.dimension, s.numberOfContacts) == (3, len(p["mu"])), path
    w = np.array([[sn.NM_get_value(s.M, i, j) for j in range(n)] for i in range(n)])
    assert np.array_equal(w, np.array(p["w"])), (path, w)
    assert np.array_equal(np.array(s.q), np.array(p["q"])), path
    assert np.array_equal(np.array(s.mu), np.array(p["mu"])), path
    if "r" in p:
        options = sn.SolverOptions(sn.SICONOS_FRICTION_3D_NSGS)
        u = np.zeros(n)
        _, error = sn.fc3d_compute_error(
            s, np.array(p["r"]), u, 1e-8, options, float(np.linalg.norm(p["q"])))
        assert error < 1e-15, (path, error)  # rounding of 0.15
        assert np.allclose(u, p["u"], atol=1e-15), (path, u)
    print("%s: Siconos reads the same problem" % os.path.basename(path))


def main():
    for name, p in [("three_contacts", THREE), ("coupled", COUPLED)]:
        for storage in STORAGES:
            path = os.path.join(HERE, "%s_%s.dat" % (name, storage))
            with open(path, "w") as f:
                f.write(problem_text(p, storage))
            if "--check" in sys.argv:
                check(path, p, storage)


if __name__ == "__main__":
    main()
