"""The Painleve map of the rigid rod of Yao & Gao, redrawn from a sweep.

A rod (mass 1, length 1) leans on a rough floor at angle ``theta``, its
lower end sliding (``slip = +1``: trailing, ``-1``: leading), friction
``mu``. Its instant is built once from arrays; the sweep sets, per
parameter set, the entries that depend on the angle (the normal row's
rotation entry and the tangent's) and the friction, and asks for the
checker's verdict (``check.verdict``) on every core. The map is drawn with
matplotlib when it is installed (the analytic boundary ``mu = (1 + 3
cos^2 th) / (3 sin th cos th)`` over it), else printed as text.

    python painleve_map.py [OUTPUT.png] [--cells N]
"""

import math
import sys

import numpy as np

import zwang

VERDICTS = ["equivalent", "not_equivalent", "painleve_inconsistent", "painleve_indeterminate"]


def rod_instant(theta=0.5, mu=0.5, slip=1):
    half = 0.5
    return zwang.Instant(
        mass=np.diag([1.0, 1.0, 1.0 / 12.0]),
        force=np.array([0.0, -9.81, 0.0]),
        # the lower end stays on the floor: y - half sin(theta) >= 0, at rest
        inequalities=(np.array([[0.0, 1.0, -half * math.cos(theta)]]), np.array([0.0])),
        friction=[{"normal": {"set": "inequalities", "row": 0},
                   "tangent": np.array([1.0, 0.0, half * math.sin(theta)]),
                   "mu": mu, "slip": slip}],
    )


def painleve_map(cells=60, mu_max=3.0):
    thetas = np.linspace(0.5, 89.5, cells) * math.pi / 180.0
    mus = np.linspace(mu_max / cells, mu_max, cells)
    sets = [{"inequalities.A[0][2]": -0.5 * math.cos(th),
             "friction[0].tangent[2]": 0.5 * math.sin(th),
             "friction[0].mu": float(mu),
             "friction[0].slip": slip}
            for slip in (1, -1) for mu in mus for th in thetas]
    rows = zwang.sweep(rod_instant(), sets, outputs=["check.verdict", "check.coupling"])
    codes = np.array([VERDICTS.index(r["check.verdict"]) for r in rows])
    return thetas, mus, codes.reshape(2, cells, cells), rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    cells = int(sys.argv[sys.argv.index("--cells") + 1]) if "--cells" in sys.argv else 60
    args = [a for a in args if a != str(cells)]
    out = args[0] if args else "painleve_map.png"
    thetas, mus, codes, rows = painleve_map(cells)
    # the smallest friction where the rod has no rigid answer, and its angle
    painleve = [(mus[i], thetas[j]) for k in (0, 1) for i in range(len(mus))
                for j in range(len(thetas)) if codes[k][i][j] == 2]
    if painleve:
        mu, th = min(painleve)
        print(f"{len(rows)} instants checked; Painleve from mu = {mu:.3f} (at theta = "
              f"{th * 180 / math.pi:.1f} deg; the closed form: 4/3 at tan theta = 2, 63.4 deg)")
    else:
        print(f"{len(rows)} instants checked; no Painleve found")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        marks = ".xPI"
        for k, title in enumerate(["slip = +1", "slip = -1"]):
            print(title + ": rows mu from high to low, columns theta 0..90 deg")
            for i in reversed(range(0, len(mus), max(1, len(mus) // 20))):
                print("  " + "".join(marks[c] for c in codes[k][i][:: max(1, len(thetas) // 60)]))
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    deg = thetas * 180 / math.pi
    for ax, k, title in zip(axes, (0, 1), ["lower end sliding with slip = +1",
                                         "lower end sliding with slip = -1"]):
        ax.pcolormesh(deg, mus, codes[k], shading="nearest", cmap="viridis", vmin=0, vmax=3)
        boundary = (1 + 3 * np.cos(thetas) ** 2) / (3 * np.sin(thetas) * np.cos(thetas))
        ax.plot(deg, boundary, "w--", lw=1.5, label="mu = (1 + 3 cos² θ) / (3 sin θ cos θ)")
        ax.set_ylim(mus[0], mus[-1])
        ax.set_title(title)
        ax.set_xlabel("θ (deg)")
    axes[0].set_ylabel("μ")
    axes[0].legend(loc="upper right", fontsize=8)
    fig.suptitle("checker's verdict: " + ", ".join(f"{i} {v}" for i, v in enumerate(VERDICTS)),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
