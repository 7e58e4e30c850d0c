"""Balances the acrobot (examples/mjcf/acrobot.xml) upright with a linear
feedback law on its elbow motor, through zwang.Simulation: every 10 ms the
control is set from the state and the model is advanced 10 ms with it
held, by the event-driven method.

    python3 acrobot_balance.py [--seconds 5] [--mujoco] [--model FILE]

The gains place the poles of the linearization about the upright links
at -4, -5, -6 and -7 /s (Ackermann's formula); the linearization is
the closed form of two uniform rods of 1 m and 1 kg (the model's), worked
out below. From the upper link 0.01 rad off (the model's keyframe "tilted") the
control saturates at first and the elbow swings 0.36 rad before the links
settle. With ``--mujoco`` (pip install mujoco) the same loop runs in
MuJoCo with its RK4 integrator at 0.25 ms, and the largest
differences of the two runs' states are printed. ``--model`` runs another
acrobot of the same layout (dm_control's acrobot.xml: its links are
capsules, close enough to rods for the same gains to hold them up).
"""

import argparse
import pathlib

import numpy as np

import zwang

MODEL = pathlib.Path(__file__).resolve().parents[3] / "examples" / "mjcf" / "acrobot.xml"
START = np.array([0.01, 0.0])
PERIOD = 0.01
G = 9.81
# Each link: mass, length, its centre's distance from its joint, its
# moment of inertia about its centre; damping at each joint; the motor's
# gear.
MASS, LENGTH, CENTRE, INERTIA = 1.0, 1.0, 0.5, 1.0 / 12.0
DAMPING, GEAR = 0.05, 2.0
POLES = (-4.0, -5.0, -6.0, -7.0)
# MuJoCo's RK4 steps per control period: at 1 ms its own error shows
# (about 1e-9 in qvel), at 0.25 ms it is below 1e-12.
MUJOCO_SUBSTEPS = 40


def linearization():
    """``A``, ``B`` of ``x' = A x + B u`` about upright at rest, ``x`` =
    (shoulder, elbow, their rates). The links stand along +z and turn about
    y, so the centres are at heights ``c cos q1`` and ``l cos q1 + c cos(q1
    + q2)``: the potential's curvature gives ``M qdd = K q - D qd + B u``
    with the double pendulum's mass matrix at ``q2 = 0``."""
    m, l, c, i = MASS, LENGTH, CENTRE, INERTIA
    mass = np.array([
        [2 * i + m * c**2 + m * (l**2 + c**2 + 2 * l * c), i + m * (c**2 + l * c)],
        [i + m * (c**2 + l * c), i + m * c**2],
    ])
    stiffness = G * np.array([[m * c + m * l + m * c, m * c], [m * c, m * c]])
    inv = np.linalg.inv(mass)
    a = np.block([[np.zeros((2, 2)), np.eye(2)], [inv @ stiffness, -DAMPING * inv]])
    b = np.concatenate([np.zeros(2), inv @ np.array([0.0, GEAR])])
    return a, b


def ackermann(a, b, poles):
    """The gains ``k`` that give ``A - B k`` the eigenvalues ``poles``."""
    n = len(poles)
    reach = np.column_stack([np.linalg.matrix_power(a, i) @ b for i in range(n)])
    coefficients = np.poly(poles)
    p_of_a = sum(c * np.linalg.matrix_power(a, n - i) for i, c in enumerate(coefficients))
    return np.linalg.solve(reach.T, np.eye(n)[-1]) @ p_of_a


GAINS = ackermann(*linearization(), POLES)


def control(qpos, qvel):
    """The feedback law, clamped as the actuator clamps it."""
    return float(np.clip(-GAINS @ np.concatenate([qpos, qvel]), -1.0, 1.0))


def run_zwang(seconds, model=MODEL, start=START):
    sim = zwang.Simulation(str(model), stepping="event", tolerance=1e-12)
    sim.qpos = start
    states, controls = [], []
    for _ in range(round(seconds / PERIOD)):
        controls.append(control(sim.qpos, sim.qvel))
        sim.ctrl = [controls[-1]]
        sim.advance(PERIOD)
        states.append(np.concatenate([sim.qpos, sim.qvel]))
    return np.array(states), np.array(controls), sim.report()


def run_mujoco(seconds, model=MODEL):
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(model))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = PERIOD / MUJOCO_SUBSTEPS
    d = mujoco.MjData(m)
    d.qpos[:] = START
    states = []
    for _ in range(round(seconds / PERIOD)):
        d.ctrl[0] = control(d.qpos, d.qvel)
        for _ in range(MUJOCO_SUBSTEPS):
            mujoco.mj_step(m, d)
        states.append(np.concatenate([d.qpos, d.qvel]))
    return np.array(states)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--mujoco", action="store_true")
    parser.add_argument("--model", type=pathlib.Path, default=MODEL)
    args = parser.parse_args()
    states, controls, report = run_zwang(args.seconds, args.model)
    saturated = np.mean(np.abs(controls) == 1.0)
    print(f"balanced: after {args.seconds:g} s the links are {np.abs(states[-1][:2]).max():.2e} "
          f"rad off upright, the elbow swung up to {np.abs(states[:, 1]).max():.2f} rad, "
          f"the control saturated {100 * saturated:.0f}% of the time ({report['status']})")
    if args.mujoco:
        other = run_mujoco(args.seconds, args.model)
        worst = np.max(np.abs(states - other), axis=0)
        print(f"MuJoCo RK4 at {PERIOD / MUJOCO_SUBSTEPS * 1e3:g} ms, same loop: largest "
              f"difference qpos {worst[:2].max():.1e}, qvel {worst[2:].max():.1e}")


if __name__ == "__main__":
    main()
