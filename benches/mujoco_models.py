"""MuJoCo's own numbers for dm_control's suite models, the reference the
MJCF reader's suite test (crates/zwang-mjcf/tests/mjcf.rs) compares with.

    python3 -m venv venv && venv/bin/pip install mujoco numpy
    venv/bin/python benches/mujoco_models.py SUITE_DIR > crates/zwang-mjcf/tests/models/mujoco_suite.json

SUITE_DIR holds dm_control's suite files (dm_control/suite/ in the
dm_control wheel, with common/). For each model: MuJoCo's nq, nv, nbody,
ngeom, nu, qpos0, each body's mass, its inertia about its centre of mass in
the body's axes (MuJoCo's principal moments body_inertia turned by
body_iquat: R diag(I) R^T, row-major), body_ipos, and the dense mass matrix
at qpos0 (mj_fullM after mj_forward), row-major.
"""

import json
import os
import sys

import mujoco
import numpy as np

MODELS = [
    "acrobot", "ball_in_cup", "cartpole", "cheetah", "finger", "hopper",
    "humanoid", "humanoid_CMU", "manipulator", "pendulum", "point_mass",
    "reacher", "stacker", "walker",
]


def tensor(quat, moments):
    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, quat)
    r = r.reshape(3, 3)
    return (r @ np.diag(moments) @ r.T).reshape(-1).tolist()


def main(suite):
    out = {
        "source": (
            f"MuJoCo {mujoco.__version__} (pip install mujoco) on dm_control's "
            "suite models (Apache License 2.0, The dm_control Authors), written "
            "by benches/mujoco_models.py"
        ),
        "models": {},
    }
    for name in MODELS:
        m = mujoco.MjModel.from_xml_path(os.path.join(suite, name + ".xml"))
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        full = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, full)
        out["models"][name] = {
            "nq": m.nq,
            "nv": m.nv,
            "nbody": m.nbody,
            "ngeom": m.ngeom,
            "nu": m.nu,
            "qpos0": m.qpos0.tolist(),
            "body_mass": m.body_mass.tolist(),
            "body_inertia": [
                tensor(m.body_iquat[b], m.body_inertia[b]) for b in range(m.nbody)
            ],
            "body_ipos": m.body_ipos.tolist(),
            "mass_matrix": full.reshape(-1).tolist(),
        }
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
