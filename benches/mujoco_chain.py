#!/usr/bin/env python3
"""MuJoCo on zwang's benchmark chain, for the work-precision comparison.

The chain: LINKS uniform rods of 1 m and 1 kg, pinned to the ground at the
origin and to each other at their ends, released horizontal, g = 9.81
(MuJoCo's x-z plane with hinges about y; zwang's x-y plane). Prints, for
RK4 and Euler at several time steps, the error of the tip position at the
end against a reference, and the wall time per simulated second.

    python3 benches/mujoco_chain.py LINKS DURATION [REF_X REF_Y]

REF_X REF_Y: the reference tip (from `cargo run --release --example
chain_work_precision`); without them MuJoCo's RK4 at dt = 1e-5 is the
reference. Needs `pip install mujoco` (not needed by the tests).
"""
import sys
import time

import mujoco


def chain_xml(links, dt, integrator):
    body = ""
    for i in reversed(range(links)):
        pos = "0 0 0" if i == 0 else "1 0 0"
        inner = body
        site = '<site name="tip" pos="1 0 0"/>' if i == links - 1 else ""
        body = (
            f'<body name="link{i}" pos="{pos}">'
            f'<joint type="hinge" axis="0 1 0" pos="0 0 0"/>'
            f'<inertial pos="0.5 0 0" mass="1" diaginertia="1e-9 {1/12!r} {1/12!r}"/>'
            f"{site}{inner}</body>"
        )
    return f"""<mujoco>
  <option timestep="{dt!r}" gravity="0 0 -9.81" integrator="{integrator}">
    <flag contact="disable" constraint="disable"/>
  </option>
  <worldbody>{body}</worldbody>
</mujoco>"""


def run(links, duration, dt, integrator):
    model = mujoco.MjModel.from_xml_string(chain_xml(links, dt, integrator))
    data = mujoco.MjData(model)
    steps = round(duration / dt)
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    seconds = time.perf_counter() - start
    mujoco.mj_kinematics(model, data)
    tip = data.site("tip").xpos
    return (tip[0], tip[2]), seconds


def main():
    links, duration = int(sys.argv[1]), float(sys.argv[2])
    if len(sys.argv) >= 5:
        ref = (float(sys.argv[3]), float(sys.argv[4]))
        source = "zwang at rtol 1e-13"
    else:
        ref, _ = run(links, duration, 1e-5, "RK4")
        source = "MuJoCo RK4 at dt 1e-5"
    print(f"# MuJoCo {mujoco.__version__}: {links} links, {duration} s; reference ({ref[0]:.15f}, {ref[1]:.15f}) from {source}")
    print("integrator\tdt\ttip error (m)\tms per simulated s")
    for integrator, dts in [("RK4", [4e-3, 2e-3, 1e-3, 5e-4, 2.5e-4]), ("Euler", [5e-3, 1e-3, 2e-4])]:
        for dt in dts:
            best = float("inf")
            for _ in range(3):
                tip, seconds = run(links, duration, dt, integrator)
                best = min(best, seconds)
            err = ((tip[0] - ref[0]) ** 2 + (tip[1] - ref[1]) ** 2) ** 0.5
            print(f"{integrator}\t{dt:g}\t{err:.2e}\t{1e3 * best / duration:.2f}")


if __name__ == "__main__":
    main()
