#!/usr/bin/env python3
"""MuJoCo on zwang's planar pyramid, for the time-stepping comparison.

ROWS rows of 1 m boxes of 1 kg (the bottom row ROWS boxes side by side,
touching, each row above offset by half a box), friction 0.6 on a floor,
g = 9.81, made planar in MuJoCo with slide-x, slide-z and hinge-y joints
per body (zwang's x-y plane is MuJoCo's x-z plane). Runs DURATION s at
dt = 0.002 (elliptic cones, MuJoCo's Newton solver) and prints the wall
time per step, the top box's drift and the deepest overlap seen, the
numbers `cargo run --release --example pyramid ROWS DURATION` prints for
zwang.

    python3 benches/mujoco_pyramid.py ROWS DURATION [pyramidal]

Needs `pip install mujoco` (not needed by the tests).
"""
import sys
import time

import mujoco


def pyramid_xml(rows, dt, cone):
    bodies = []
    for r in range(rows):
        count = rows - r
        for i in range(count):
            x = i - (count - 1) / 2.0
            z = 0.5 + r
            bodies.append(
                f'<body name="b{r}_{i}" pos="{x!r} 0 {z!r}">'
                '<joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 0 1"/>'
                '<joint type="hinge" axis="0 1 0"/>'
                '<geom type="box" size="0.5 0.5 0.5" mass="1" friction="0.6 0 0"/>'
                "</body>"
            )
    return f"""<mujoco>
  <option timestep="{dt!r}" gravity="0 0 -9.81" cone="{cone}"/>
  <worldbody>
    <geom type="plane" size="100 100 1" friction="0.6 0 0"/>
    {''.join(bodies)}
  </worldbody>
</mujoco>"""


def main():
    rows, duration = int(sys.argv[1]), float(sys.argv[2])
    cone = sys.argv[3] if len(sys.argv) > 3 else "elliptic"
    dt = 0.002
    model = mujoco.MjModel.from_xml_string(pyramid_xml(rows, dt, cone))
    steps = round(duration / dt)
    # The time of the steps alone; then the same run again, the overlaps
    # read after each step.
    data = mujoco.MjData(model)
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    seconds = time.perf_counter() - start
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    top = model.nbody - 1
    start_pos = data.xpos[top].copy()
    deepest = 0.0
    for _ in range(steps):
        mujoco.mj_step(model, data)
        if data.ncon:
            deepest = max(deepest, -float(data.contact.dist[: data.ncon].min()))
    drift = data.xpos[top] - start_pos
    print(
        f"mujoco {mujoco.__version__} {cone}: rows {rows} bodies {model.nbody - 1} "
        f"steps {steps}: {1e3 * seconds / steps:.3f} ms/step, "
        f"top drift x {drift[0]:.3e} z {drift[2]:.3e} m, deepest overlap {deepest:.3e} m"
    )


if __name__ == "__main__":
    main()
