#!/usr/bin/env python3
"""zwang against MuJoCo on MuJoCo's own models (the dm_control suite).

    python3 benches/mujoco_suite.py SUITE_DIR ZWANG_BINARY [--models a,b]
                                    [--check rk4,fall,pace] [--seeds N]

SUITE_DIR holds the suite's XML files (`pip download dm_control`, then the
wheel's `dm_control/suite/`); ZWANG_BINARY is `target/release/zwang`.
Needs `pip install mujoco numpy`. Three checks, each printing a table:

- `rk4`: contact-free motion. For each model and seed, a random start
  (hinge and slide joints inside the middle half of their range, or within
  0.3 of `qpos0` when unlimited; ball and free joints turned by up to 0.3
  rad; velocities up to 0.5; controls inside `ctrlrange`) is written as a
  keyframe into a copy of the model with contacts disabled; MuJoCo
  integrates it with RK4 at 1e-5 s, zwang with `--stepping event
  --tolerance 1e-10`, both for `--duration` (0.05 s); the table gives the
  largest difference in `qpos` (on the manifold for quaternions: the angle)
  and `qvel`. A run during which MuJoCo met a joint limit is marked: its
  limits are soft, zwang's hard, and the two motions then differ by
  design.
- `fall`: from `qpos0` at rest, 8 s at the file's time step (zwang's
  default stepping, MuJoCo's default solver): the deepest overlap of two
  geoms, the largest limit violation (the start's included, for both: a
  note says when the file's own `qpos0` is past a limit), the energy at
  start and end, and the speed at the end, for both.
- `pace`: the time per step of the `fall` runs (zwang's `stats.wall_time`
  over its steps; MuJoCo's steps in a C rollout), in the same run; with
  `--repeat N`, N pairs run one after the other: the fastest of each
  engine's times, and the median of the pairs' ratios (a shared machine's
  load drifts over minutes).

Reports numbers; asserts nothing (the tests do not need MuJoCo).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
from mujoco import rollout

FREE, BALL, SLIDE, HINGE = (int(k) for k in (
    mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL,
    mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE))
LIMIT_JOINT = int(mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT)

SUITE = [
    "acrobot", "ball_in_cup", "cartpole", "cheetah", "finger", "hopper",
    "humanoid", "humanoid_CMU", "manipulator", "pendulum", "point_mass",
    "reacher", "stacker", "walker",
]


def random_start(model, rng):
    """A random qpos, qvel and ctrl for `model` (see the module's doc)."""
    qpos = model.qpos0.copy()
    for j in range(model.njnt):
        a = model.jnt_qposadr[j]
        kind = int(model.jnt_type[j])
        if kind in (HINGE, SLIDE):
            if model.jnt_limited[j]:
                lo, hi = model.jnt_range[j]
                mid, half = (lo + hi) / 2, (hi - lo) / 4
                qpos[a] = rng.uniform(mid - half, mid + half)
            else:
                qpos[a] += rng.uniform(-0.3, 0.3)
        else:
            q = a + (3 if kind == FREE else 0)
            axis = rng.normal(size=3)
            axis /= np.linalg.norm(axis)
            angle = rng.uniform(0, 0.3)
            turn = np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis])
            out = np.zeros(4)
            mujoco.mju_mulQuat(out, qpos[q:q + 4], turn)
            qpos[q:q + 4] = out
    qvel = rng.uniform(-0.5, 0.5, size=model.nv)
    ctrl = np.zeros(model.nu)
    for i in range(model.nu):
        if model.actuator_ctrllimited[i]:
            lo, hi = model.actuator_ctrlrange[i]
            ctrl[i] = rng.uniform(lo, hi)
        else:
            ctrl[i] = rng.uniform(-1, 1)
    return qpos, qvel, ctrl


def numbers(values):
    return " ".join(repr(float(x)) for x in values)


def with_key(source, target, qpos, qvel, ctrl, contact):
    """Writes `source` to `target` with a keyframe `start` and, unless
    `contact`, contacts disabled."""
    tree = ET.parse(source)
    root = tree.getroot()
    if not contact:
        option = root.find("option")
        if option is None:
            option = ET.SubElement(root, "option")
        flag = option.find("flag")
        if flag is None:
            flag = ET.SubElement(option, "flag")
        flag.set("contact", "disable")
    keyframe = root.find("keyframe")
    if keyframe is None:
        keyframe = ET.SubElement(root, "keyframe")
    key = ET.SubElement(keyframe, "key")
    key.set("name", "start")
    key.set("qpos", numbers(qpos))
    key.set("qvel", numbers(qvel))
    if len(ctrl):
        key.set("ctrl", numbers(ctrl))
    tree.write(target)


def zwang(binary, path, args):
    out = subprocess.run(
        [binary, "simulate", path, "--json", *args],
        capture_output=True, text=True,
    )
    if out.returncode not in (0, 1):
        return None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"
    try:
        return json.loads(out.stdout), None
    except json.JSONDecodeError:
        return None, "no JSON"


def qpos_difference(model, a, b):
    """The largest difference of two qpos: entries, or angles of
    quaternions."""
    worst = 0.0
    for j in range(model.njnt):
        q = model.jnt_qposadr[j]
        kind = int(model.jnt_type[j])
        if kind == FREE:
            worst = max(worst, np.max(np.abs(a[q:q + 3] - b[q:q + 3])))
            q += 3
        if kind in (FREE, BALL):
            dot = abs(float(np.dot(a[q:q + 4], b[q:q + 4])))
            worst = max(worst, 2 * math.acos(min(1.0, dot)))
        else:
            worst = max(worst, abs(a[q] - b[q]))
    return worst


def check_rk4(args, names, work):
    print(f"rk4: contact-free, {args.duration} s, MuJoCo RK4 at 1e-5 s against zwang --stepping event --tolerance 1e-10")
    print(f"{'model':14} {'seed':>4} {'qpos diff':>10} {'qvel diff':>10}  note")
    for name in names:
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            model = mujoco.MjModel.from_xml_path(os.path.join(work, name + ".xml"))
            qpos, qvel, ctrl = random_start(model, rng)
            path = os.path.join(work, f"{name}_rk4_{seed}.xml")
            with_key(os.path.join(work, name + ".xml"), path, qpos, qvel, ctrl, contact=False)
            m = mujoco.MjModel.from_xml_path(path)
            m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
            m.opt.timestep = 1e-5
            d = mujoco.MjData(m)
            mujoco.mj_resetDataKeyframe(m, d, 0)
            limits = False
            for _ in range(round(args.duration / m.opt.timestep)):
                mujoco.mj_step(m, d)
                limits |= bool(np.any(d.efc_type[:d.nefc] == LIMIT_JOINT))
            report, error = zwang(args.zwang, path, ["--duration", str(args.duration), "--keyframe", "start",
                                                    "--stepping", "event", "--tolerance", "1e-10"])
            if report is None:
                print(f"{name:14} {seed:>4} {'-':>10} {'-':>10}  zwang: {error}")
                continue
            dq = qpos_difference(m, d.qpos, np.array(report["final"]["qpos"]))
            dv = float(np.max(np.abs(d.qvel - np.array(report["final"]["qvel"])))) if m.nv else 0.0
            notes = ["MuJoCo met a limit"] if limits else []
            if m.neq:
                # The random start is off the equalities: zwang projects it
                # onto them, MuJoCo's soft rows pull it there over time.
                notes.append("equalities (soft in MuJoCo)")
            if "start_projection" in report:
                notes.append("zwang moved the start")
            print(f"{name:14} {seed:>4} {dq:10.2e} {dv:10.2e}  {', '.join(notes)}")


def mujoco_pace(path, steps):
    """MuJoCo's time per step from `qpos0` at rest, in a C rollout."""
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)
    start = time.perf_counter()
    rollout.rollout(m, d, state[None], nstep=steps)
    return (time.perf_counter() - start) / steps


def mujoco_fall(path, seconds):
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    energy0 = None
    steps = round(seconds / m.opt.timestep)
    overlap = violation = 0.0
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    start = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(m, d)
        if energy0 is None:
            energy0 = float(d.energy.sum())
        for c in d.contact[:d.ncon]:
            overlap = max(overlap, -c.dist)
        for j in range(m.njnt):
            if m.jnt_limited[j] and int(m.jnt_type[j]) in (HINGE, SLIDE):
                q = d.qpos[m.jnt_qposadr[j]]
                lo, hi = m.jnt_range[j]
                violation = max(violation, lo - q, q - hi)
    wall = time.perf_counter() - start
    # The step alone, without the measuring above nor Python's loop: a
    # rollout in C from the same start.
    mujoco.mj_resetData(m, d)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)
    start = time.perf_counter()
    rollout.rollout(m, d, state[None], nstep=steps)
    pace = (time.perf_counter() - start) / steps
    mujoco.mj_resetData(m, d)
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return {
        "overlap": overlap, "violation": violation, "energy": (energy0, float(d.energy.sum())),
        "speed": float(np.max(np.abs(d.qvel))) if m.nv else 0.0, "pace": pace, "wall": wall, "steps": steps,
    }


def check_fall(args, names, work, pace_only=False):
    print(f"fall: {args.fall} s from qpos0 at rest at the file's time step")
    print(f"{'model':14} {'':6} {'overlap m':>10} {'limit':>10} {'E0 J':>10} {'E1 J':>10} {'|qvel| end':>10} {'us/step':>9} {'ratio':>6}  note")
    for name in names:
        path = os.path.join(work, name + ".xml")
        mj = mujoco_fall(path, args.fall)
        report, error = zwang(args.zwang, path, ["--duration", str(args.fall)])
        # Pairs run one after the other, so that the machine's drift
        # touches both engines of a pair alike.
        pairs = [(mj["pace"], report["stats"]["wall_time"])] if report is not None else []
        for _ in range(args.repeat - 1):
            again, _ = zwang(args.zwang, path, ["--duration", str(args.fall)])
            if again is not None:
                pairs.append((mujoco_pace(path, mj["steps"]), again["stats"]["wall_time"]))
        mj_row = (f"{name:14} {'mujoco':6} {mj['overlap']:10.2e} {mj['violation']:10.2e} {mj['energy'][0]:10.4g} "
                  f"{mj['energy'][1]:10.4g} {mj['speed']:10.2e} {mj['pace'] * 1e6:9.1f}")
        if report is None:
            print(mj_row)
            print(f"{'':14} {'zwang':6} {error}")
            continue
        steps = max(report.get("steps", 1), 1)
        pace = min(wall for _, wall in pairs) / steps
        ratios = sorted(wall / steps / mj_pace for mj_pace, wall in pairs)
        ratio = ratios[len(ratios) // 2]
        mj_row = mj_row[: -9] + f"{min(p for p, _ in pairs) * 1e6:9.1f}"
        print(mj_row)
        speed = max((abs(x) for x in report["final"]["qvel"]), default=0.0)
        notes = [] if report.get("unsolved_steps", 0) == 0 else [f"{report['unsolved_steps']} unsolved steps"]
        moved = report.get("start_projection")
        if moved is not None:
            # The limit column counts the start (as MuJoCo's does): say
            # when the file's own qpos0 is what passed a limit.
            notes.append(f"qpos0 past {moved['at']} by {moved['violation']:.2e}, moved at the start")
        note = "; ".join(notes)
        print(f"{'':14} {'zwang':6} {report['max_penetration']:10.2e} {report['max_limit_violation']:10.2e} "
              f"{report['energy']['initial']:10.4g} {report['energy']['final']:10.4g} {speed:10.2e} "
              f"{pace * 1e6:9.1f} {ratio:6.2f}  {note}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite")
    parser.add_argument("zwang")
    parser.add_argument("--models", default=",".join(SUITE))
    parser.add_argument("--check", default="rk4,fall")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=0.05)
    parser.add_argument("--fall", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=1,
                        help="pace: this many pairs of runs (fastest times, median ratio)")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    with tempfile.TemporaryDirectory() as work:
        # A copy, so that keyframes can be added beside the includes.
        for entry in os.listdir(args.suite):
            source = os.path.join(args.suite, entry)
            (shutil.copytree if os.path.isdir(source) else shutil.copy)(source, os.path.join(work, entry))
        checks = args.check.split(",")
        print(f"MuJoCo {mujoco.__version__}; zwang {args.zwang}")
        if "rk4" in checks:
            check_rk4(args, names, work)
        if "fall" in checks or "pace" in checks:
            check_fall(args, names, work)


if __name__ == "__main__":
    sys.exit(main())
