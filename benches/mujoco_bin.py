#!/usr/bin/env python3
"""MuJoCo on zwang's boxes-into-a-bin scene, for the time-stepping comparison.

BOXES cubes of 0.1 m and 1 kg in layers of 8 x 8, a little apart and
turned a little (the same deterministic jitter as zwang's
`examples/box_bin.rs`), dropped from just above a 0.9 m square bin (a
floor and four walls, all planes), friction 0.5, g = 9.81, dt = 0.002
unless given. Runs DURATION s with MuJoCo's Newton solver (elliptic cones
unless `pyramidal`) and prints the wall time per step, the fastest speed
at the end and the deepest overlap seen: the numbers
`cargo run --release --example box_bin BOXES DURATION` prints for zwang.

    python3 benches/mujoco_bin.py BOXES DURATION [TIME_STEP] [pyramidal] [impratio=10] [solref=T]

`solref=T` sets the contacts' time constant (MuJoCo's default 0.02 s; it
takes at least two time steps): its soft contacts overlap and creep less
the stiffer they are, so `TIME_STEP` and `solref` together say what
MuJoCo needs to meet zwang's bars (overlap below 0.1 mm, at rest below
1e-4 m/s); compare the wall time of the whole run then.

Needs `pip install mujoco` (not needed by the tests).
"""
import math
import sys
import time

import mujoco

HALF_WIDTH = 0.45


def jitter(k, s):
    return ((k * 7919 + s * 104_729) % 1000) / 1000.0 - 0.5


def quaternion(w):
    """The unit quaternion [w, x, y, z] of the rotation vector w (zwang's
    `rotation::exp`)."""
    angle = math.sqrt(sum(x * x for x in w))
    if angle == 0.0:
        return [1.0, 0.0, 0.0, 0.0]
    s = math.sin(0.5 * angle) / angle
    return [math.cos(0.5 * angle)] + [s * x for x in w]


def bin_xml(boxes, dt, cone, impratio, solref):
    bodies = []
    for k in range(boxes):
        layer, i, j = k // 64, (k % 64) // 8, k % 8
        pos = [
            -0.392 + 0.112 * i + 0.004 * jitter(k, 1),
            -0.392 + 0.112 * j + 0.004 * jitter(k, 2),
            0.07 + 0.13 * layer,
        ]
        quat = quaternion([0.2 * jitter(k, 3), 0.2 * jitter(k, 4), 0.1 * jitter(k, 5)])
        p = " ".join(repr(x) for x in pos)
        q = " ".join(repr(x) for x in quat)
        bodies.append(
            f'<body pos="{p}" quat="{q}"><freejoint/>'
            '<geom type="box" size="0.05 0.05 0.05" mass="1" friction="0.5 0 0"/></body>'
        )
    walls = []
    # Each wall a plane whose normal (its local z) points into the bin.
    for normal, euler in [
        ((1, 0, 0), "0 90 0"),
        ((-1, 0, 0), "0 -90 0"),
        ((0, 1, 0), "-90 0 0"),
        ((0, -1, 0), "90 0 0"),
    ]:
        pos = " ".join(repr(-HALF_WIDTH * x) for x in normal)
        walls.append(
            f'<geom type="plane" size="1 1 1" pos="{pos}" euler="{euler}" friction="0.5 0 0"/>'
        )
    return f"""<mujoco>
  <compiler angle="degree"/>
  <option timestep="{dt!r}" gravity="0 0 -9.81" cone="{cone}" impratio="{impratio!r}"/>
  <size memory="200M"/>
  <default><geom solref="{solref!r} 1"/></default>
  <worldbody>
    <geom type="plane" size="1 1 1" friction="0.5 0 0"/>
    {"".join(walls)}
    {"".join(bodies)}
  </worldbody>
</mujoco>"""


def main():
    args = sys.argv[1:]
    boxes = int(args[0]) if args else 256
    duration = float(args[1]) if len(args) > 1 else 2.0
    rest = args[2:]
    dt = next((float(a) for a in rest if a.replace(".", "", 1).replace("e-", "", 1).isdigit()), 0.002)
    cone = "pyramidal" if "pyramidal" in rest else "elliptic"
    impratio = next((float(a.split("=")[1]) for a in rest if a.startswith("impratio=")), 1.0)
    solref = next((float(a.split("=")[1]) for a in rest if a.startswith("solref=")), 0.02)
    model = mujoco.MjModel.from_xml_string(bin_xml(boxes, dt, cone, impratio, solref))
    data = mujoco.MjData(model)
    steps = round(duration / dt)
    deepest = 0.0
    start = time.perf_counter()
    # The last quarter of the run on its own: the pile at rest.
    quarter = steps - steps // 4
    for n in range(steps):
        if n == quarter:
            rest_start = time.perf_counter()
        mujoco.mj_step(model, data)
        if data.ncon:
            deepest = max(deepest, -min(data.contact.dist[: data.ncon]))
    end = time.perf_counter()
    elapsed = end - start
    last = 1e3 * (end - rest_start) / max(steps - quarter, 1)
    fastest = max(abs(x) for x in data.qvel) if model.nv else 0.0
    final = -min(data.contact.dist[: data.ncon]) if data.ncon else 0.0
    print(
        f"mujoco {mujoco.__version__} {cone}, impratio {impratio:g}, solref {solref:g}: {boxes} boxes, "
        f"{steps} steps in {elapsed:.2f} s: {1e3 * elapsed / steps:.3f} ms/step ({last:.3f} over the last quarter); {data.ncon} contacts at the end; "
        f"fastest speed at the end {fastest:.2e}; deepest overlap {deepest:.2e} m ({final:.2e} m at the end)"
    )


if __name__ == "__main__":
    main()
