"""MuJoCo's own numbers for dm_control's suite models, the reference the
MJCF reader's suite test (crates/zwang-mjcf/tests/mjcf.rs) compares with.

    python3 -m venv venv && venv/bin/pip install mujoco numpy
    venv/bin/python benches/mujoco_models.py SUITE_DIR > crates/zwang-mjcf/tests/models/mujoco_suite.json

Under "project", the same for the project's own test models (PROJECT,
paths relative to this script), with, at each keyframe's qpos, the mass
matrix and every body's world position and orientation.

SUITE_DIR holds dm_control's suite files (dm_control/suite/ in the
dm_control wheel, with common/). For each model: MuJoCo's nq, nv, nbody,
ngeom, nu, qpos0, each body's mass, its inertia about its centre of mass in
the body's axes (MuJoCo's principal moments body_inertia turned by
body_iquat: R diag(I) R^T, row-major), body_ipos, and the dense mass matrix
at qpos0 (mj_fullM after mj_forward), row-major; and what the reader
must carry over as MuJoCo compiled it: body frames, joints (type,
addresses, frame, limits, springs, damping, armature, dry friction), geoms
(type, size, frame, friction, condim, collision bits), actuators
(transmission, gear, gain, bias, control and force ranges), tendons
(limits, springs, damping), equalities, keyframes, the time step, gravity
and the disabled flags.
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


PROJECT = ["../crates/zwang-mjcf/tests/models/tricky.xml"]


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
        out["models"][name] = describe(os.path.join(suite, name + ".xml"))
    out["project"] = {}
    here = os.path.dirname(os.path.abspath(__file__))
    for path in PROJECT:
        name = os.path.splitext(os.path.basename(path))[0]
        out["project"][name] = describe(os.path.join(here, path))
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


def describe(path):
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    full = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, full)
    keys = []
    for k in range(m.nkey):
        mujoco.mj_resetDataKeyframe(m, d, k)
        mujoco.mj_forward(m, d)
        key_m = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, key_m)
        keys.append({
            "mass_matrix": key_m.reshape(-1).tolist(),
            "xpos": d.xpos.tolist(),
            "xquat": d.xquat.tolist(),
        })
    return {
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
        "body_pos": m.body_pos.tolist(),
        "body_quat": m.body_quat.tolist(),
        "jnt_type": m.jnt_type.tolist(),
        "jnt_qposadr": m.jnt_qposadr.tolist(),
        "jnt_dofadr": m.jnt_dofadr.tolist(),
        "jnt_bodyid": m.jnt_bodyid.tolist(),
        "jnt_pos": m.jnt_pos.tolist(),
        "jnt_axis": m.jnt_axis.tolist(),
        "jnt_limited": m.jnt_limited.tolist(),
        "jnt_range": m.jnt_range.tolist(),
        "jnt_stiffness": m.jnt_stiffness.tolist(),
        "qpos_spring": m.qpos_spring.tolist(),
        "dof_damping": m.dof_damping.tolist(),
        "dof_armature": m.dof_armature.tolist(),
        "dof_frictionloss": m.dof_frictionloss.tolist(),
        "geom_type": m.geom_type.tolist(),
        "geom_bodyid": m.geom_bodyid.tolist(),
        "geom_size": m.geom_size.tolist(),
        "geom_pos": m.geom_pos.tolist(),
        "geom_quat": m.geom_quat.tolist(),
        "geom_friction": m.geom_friction[:, 0].tolist(),
        "geom_condim": m.geom_condim.tolist(),
        "geom_contype": m.geom_contype.tolist(),
        "geom_conaffinity": m.geom_conaffinity.tolist(),
        "actuator_trntype": m.actuator_trntype.tolist(),
        "actuator_trnid": m.actuator_trnid[:, 0].tolist(),
        "actuator_gear": m.actuator_gear[:, 0].tolist(),
        "actuator_gain": m.actuator_gainprm[:, 0].tolist(),
        "actuator_biastype": m.actuator_biastype.tolist(),
        "actuator_bias": m.actuator_biasprm[:, :3].tolist(),
        "actuator_ctrllimited": m.actuator_ctrllimited.tolist(),
        "actuator_ctrlrange": m.actuator_ctrlrange.tolist(),
        "actuator_forcelimited": m.actuator_forcelimited.tolist(),
        "actuator_forcerange": m.actuator_forcerange.tolist(),
        "ntendon": m.ntendon,
        "tendon_limited": m.tendon_limited.tolist(),
        "tendon_range": m.tendon_range.tolist(),
        "tendon_stiffness": m.tendon_stiffness.tolist(),
        "tendon_damping": m.tendon_damping.tolist(),
        "neq": m.neq,
        "eq_type": m.eq_type.tolist(),
        "nkey": m.nkey,
        "key_qpos": m.key_qpos.tolist(),
        "key_qvel": m.key_qvel.tolist(),
        "key_ctrl": m.key_ctrl.tolist(),
        "timestep": m.opt.timestep,
        "gravity": m.opt.gravity.tolist(),
        "disable_constraint": bool(m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CONSTRAINT),
        "disable_contact": bool(m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CONTACT),
        "disable_gravity": bool(m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY),
        "tendon_length0": m.tendon_length0.tolist(),
        "tendon_lengthspring": m.tendon_lengthspring.tolist(),
        "eq_data": m.eq_data.tolist(),
        "eq_obj1id": m.eq_obj1id.tolist(),
        "eq_obj2id": m.eq_obj2id.tolist(),
        "keys": keys,
    }


if __name__ == "__main__":
    main(sys.argv[1])
