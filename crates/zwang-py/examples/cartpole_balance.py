"""Balances the cart-pole (examples/mjcf/cartpole.xml) with a linear
feedback law, through zwang.Simulation: every 10 ms the controls are set
from the state and the model is advanced 10 ms with them held, by the
event-driven method.

    python3 cartpole_balance.py [--seconds 5] [--mujoco]

The gains place the closed loop's poles of the linearization about the
upright pole at -2, -2.5, -3 and -3.5 /s (Ackermann's formula); from the
keyframe "tilted" (0.2 rad) the control stays inside [-1, 1]. With
``--mujoco`` (pip install mujoco) the same loop runs in MuJoCo with its RK4
integrator at 1 ms, and the largest differences of the two runs' states
are printed: both integrate the same equations accurately, so they agree
to the integrators' accuracy.
"""

import argparse
import pathlib

import numpy as np

import zwang

MODEL = pathlib.Path(__file__).resolve().parents[3] / "examples" / "mjcf" / "cartpole.xml"
GAINS = np.array([-0.3785, -4.5051, -0.5751, -1.174])
PERIOD = 0.01


def control(qpos, qvel):
    """The feedback law, clamped as the actuator clamps it."""
    return float(np.clip(-GAINS @ np.concatenate([qpos, qvel]), -1.0, 1.0))


def run_zwang(seconds):
    sim = zwang.Simulation(str(MODEL), stepping="event", tolerance=1e-12)
    sim.reset(keyframe="tilted")
    states = []
    for _ in range(round(seconds / PERIOD)):
        sim.ctrl = [control(sim.qpos, sim.qvel)]
        sim.advance(PERIOD)
        states.append(np.concatenate([sim.qpos, sim.qvel]))
    return np.array(states), sim.report()


def run_mujoco(seconds):
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(MODEL))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = PERIOD / 10
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    states = []
    for _ in range(round(seconds / PERIOD)):
        d.ctrl[0] = control(d.qpos, d.qvel)
        for _ in range(10):
            mujoco.mj_step(m, d)
        states.append(np.concatenate([d.qpos, d.qvel]))
    return np.array(states)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--mujoco", action="store_true")
    args = parser.parse_args()
    states, report = run_zwang(args.seconds)
    x, theta = states[-1][0], states[-1][1]
    print(f"balanced: after {args.seconds:g} s the pole is {abs(theta):.2e} rad off upright, "
          f"the cart {abs(x):.2e} m from the middle ({report['status']})")
    if args.mujoco:
        other = run_mujoco(args.seconds)
        worst = np.max(np.abs(states - other), axis=0)
        print(f"MuJoCo RK4 at 1 ms, same loop: largest difference qpos {worst[:2].max():.1e}, "
              f"qvel {worst[2:].max():.1e}")


if __name__ == "__main__":
    main()
