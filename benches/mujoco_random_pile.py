#!/usr/bin/env python3
"""MuJoCo on zwang's random pile, for the time-stepping comparison.

The pile of `examples/random_pile.rs`: cubes of 0.1 m and 1 kg in random
orientations, in offset layers over a bin 1.2 m wide inside (a floor and
four walls, all planes), friction 0.6, g = 9.81. Its poses are read from
the JSON file `cargo run --release --example random_pile -- BOXES
DURATION TIME_STEP seed=S poses=FILE` writes, so both start from the
same state. Runs DURATION s at TIME_STEP with elliptic cones and each of
MuJoCo's Newton and CG solvers (or the one given) and prints, per solver,
the wall time per step over the whole run and over its last tenth (the
pile at rest), the deepest overlap seen (from the contacts' distances),
the fastest box at the end (linear speed, and angular speed times the
bounding radius) and whether every box is inside the bin.

    python3 benches/mujoco_random_pile.py POSES DURATION TIME_STEP [solver=Newton|CG] [solref=T] [impratio=X] [json]

`json` prints one JSON line per solver. Needs `pip install mujoco` (not
needed by the tests).
"""
import json
import math
import sys
import time

import mujoco


def pile_xml(pile, dt, solver, impratio, solref):
    h = pile["half_edge"]
    mu = pile["friction"]
    mass = pile["mass"]
    bodies = []
    for b in pile["boxes"]:
        p = " ".join(repr(x) for x in b["position"])
        q = " ".join(repr(x) for x in b["orientation"])
        bodies.append(
            f'<body pos="{p}" quat="{q}"><freejoint/>'
            f'<geom type="box" size="{h!r} {h!r} {h!r}" mass="{mass!r}" friction="{mu!r} 0 0"/></body>'
        )
    walls = []
    half_width = pile["half_width"]
    # Each wall a plane whose normal (its local z) points into the bin.
    for normal, euler in [
        ((1, 0, 0), "0 90 0"),
        ((-1, 0, 0), "0 -90 0"),
        ((0, 1, 0), "-90 0 0"),
        ((0, -1, 0), "90 0 0"),
    ]:
        pos = " ".join(repr(-half_width * x) for x in normal)
        walls.append(
            f'<geom type="plane" size="2 2 1" pos="{pos}" euler="{euler}" friction="{mu!r} 0 0"/>'
        )
    g = " ".join(repr(x) for x in pile["gravity"])
    memory = max(200, len(pile["boxes"]))
    return f"""<mujoco>
  <compiler angle="degree"/>
  <option timestep="{dt!r}" gravity="{g}" cone="elliptic" solver="{solver}" impratio="{impratio!r}"/>
  <size memory="{memory}M"/>
  <default><geom solref="{solref!r} 1"/></default>
  <worldbody>
    <geom type="plane" size="2 2 1" friction="{mu!r} 0 0"/>
    {"".join(walls)}
    {"".join(bodies)}
  </worldbody>
</mujoco>"""


def run(pile, duration, dt, solver, impratio, solref):
    model = mujoco.MjModel.from_xml_string(pile_xml(pile, dt, solver, impratio, solref))
    data = mujoco.MjData(model)
    steps = round(duration / dt)
    at_rest = steps - steps // 10
    deepest, most, iterations = 0.0, 0, 0
    # Only the steps are timed, not the overlap's look-up between them.
    total = at_rest_total = 0.0
    for n in range(steps):
        start = time.perf_counter()
        mujoco.mj_step(model, data)
        took = time.perf_counter() - start
        total += took
        if n >= at_rest:
            at_rest_total += took
        iterations += int(data.solver_niter[0])
        if data.ncon:
            deepest = max(deepest, -float(data.contact.dist[: data.ncon].min()))
            most = max(most, data.ncon)
    radius = math.sqrt(3.0) * pile["half_edge"]
    half_width = pile["half_width"]
    linear = angular = 0.0
    outside = 0
    for k in range(len(pile["boxes"])):
        v = data.qvel[6 * k : 6 * k + 6]
        linear = max(linear, math.sqrt(sum(x * x for x in v[:3])))
        angular = max(angular, radius * math.sqrt(sum(x * x for x in v[3:])))
        c = data.qpos[7 * k : 7 * k + 3]
        outside += not (abs(c[0]) < half_width and abs(c[1]) < half_width and c[2] > 0.0)
    final = -float(data.contact.dist[: data.ncon].min()) if data.ncon else 0.0
    return {
        "mujoco": mujoco.__version__,
        "solver": solver,
        "boxes": len(pile["boxes"]),
        "seed": pile.get("seed"),
        "duration": duration,
        "time_step": dt,
        "steps": steps,
        "impratio": impratio,
        "solref": solref,
        "ms_per_step": 1e3 * total / steps,
        "ms_per_step_at_rest": 1e3 * at_rest_total / max(steps - at_rest, 1),
        "contacts_max": most,
        "iterations_per_step": iterations / steps,
        "overlap": deepest,
        "overlap_at_end": final,
        "fastest_linear": linear,
        "fastest_angular": angular,
        "outside": outside,
    }


def main():
    args = sys.argv[1:]
    numbers = []
    for a in args[1:]:
        try:
            numbers.append(float(a))
        except ValueError:
            pass
    duration = numbers[0] if numbers else 2.0
    dt = numbers[1] if len(numbers) > 1 else 0.002
    option = lambda name, default: next(
        (a.split("=", 1)[1] for a in args if a.startswith(name + "=")), default
    )
    solvers = [option("solver", None)] if option("solver", None) else ["Newton", "CG"]
    impratio = float(option("impratio", 1.0))
    solref = float(option("solref", 0.02))
    with open(args[0]) as f:
        pile = json.load(f)
    for solver in solvers:
        r = run(pile, duration, dt, solver, impratio, solref)
        if "json" in args:
            print(json.dumps(r), flush=True)
        else:
            print(
                f"mujoco {r['mujoco']} {solver}, elliptic, impratio {impratio:g}, solref {solref:g}: "
                f"{r['boxes']} boxes, seed {r['seed']}, {r['steps']} steps of {dt:g} s: "
                f"{r['ms_per_step']:.3f} ms/step ({r['ms_per_step_at_rest']:.3f} over the last tenth); "
                f"{r['iterations_per_step']:.1f} solver iterations a step; at most {r['contacts_max']} contacts; deepest overlap {r['overlap']:.2e} m "
                f"({r['overlap_at_end']:.2e} m at the end); fastest at the end {r['fastest_linear']:.2e} m/s "
                f"linear, {r['fastest_angular']:.2e} m/s angular at the bounding radius; "
                + ("every box inside the bin" if r["outside"] == 0 else f"{r['outside']} boxes outside the bin"),
                flush=True,
            )


if __name__ == "__main__":
    main()
