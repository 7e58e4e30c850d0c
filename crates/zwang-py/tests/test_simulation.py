"""``zwang.Simulation``: an MJCF model under Python's control, against
closed forms and against the command line on the same file."""

import json
import math

import numpy as np
import pytest

import zwang
from conftest import REPO

PENDULUM = str(REPO / "tests" / "data" / "mjcf" / "pendulum.xml")


def complete_k(m):
    """The complete elliptic integral of the first kind, by the AGM."""
    a, b = 1.0, math.sqrt(1.0 - m)
    while abs(a - b) > 1e-16 * a:
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def test_the_pendulum_keeps_its_elliptic_period_in_pieces():
    sim = zwang.Simulation(PENDULUM, stepping="event", tolerance=1e-12)
    sim.reset(keyframe="wide")
    assert sim.qpos.tolist() == [2.0] and sim.qvel.tolist() == [0.0]
    w0 = math.sqrt(9.81 / (1 + 0.4e-6))
    period = 4 * complete_k(math.sin(1.0) ** 2) / w0
    for _ in range(4):
        sim.advance(period / 4)
    assert abs(sim.qpos[0] - 2.0) < 1e-8 and abs(sim.qvel[0]) < 1e-7
    assert abs(sim.time - period) < 1e-12
    report = sim.report()
    assert report["status"] == "finished"
    assert abs(report["energy"]["final"] - report["energy"]["initial"]) < 1e-9


def test_time_steps_match_the_command_line(cli):
    sim = zwang.Simulation(PENDULUM)
    sim.reset(keyframe=1)
    for _ in range(100):
        sim.step()
    code, out, err = cli("simulate", PENDULUM, "--duration", "0.1", "--keyframe", "1", "--json")
    assert code == 0, err
    expected = json.loads(out)
    assert abs(sim.time - 0.1) < 1e-12
    assert np.max(np.abs(sim.qpos - expected["final"]["qpos"])) < 1e-12
    assert np.max(np.abs(sim.qvel - expected["final"]["qvel"])) < 1e-12
    bob = sim.body("bob")
    assert np.allclose(bob["position"], expected["final"]["bodies"]["bob"]["position"], atol=1e-12)


def test_the_state_can_be_set_and_bad_input_is_one_line():
    sim = zwang.Simulation(PENDULUM)
    sim.qpos = np.array([0.3])
    sim.qvel = [0.0]
    assert sim.qpos.tolist() == [0.3]
    copy = sim.qpos
    copy[0] = 9.0
    assert sim.qpos.tolist() == [0.3], "qpos is a copy"
    with pytest.raises(ValueError, match=r"^qpos: 2 numbers, expected 1$"):
        sim.qpos = [0.0, 1.0]
    with pytest.raises(ValueError, match="no such key"):
        sim.reset(keyframe="narrow")
    with pytest.raises(ValueError, match="^stepping: "):
        zwang.Simulation(PENDULUM, stepping="rk4")
    with pytest.raises(ValueError, match="^mjcf: "):
        zwang.Simulation(str(REPO / "tests" / "data" / "mjcf" / "malformed" / "bad_quat.xml"))
    with pytest.raises(ValueError, match="no such body"):
        sim.body("rim")


def test_the_cartpole_example_balances_the_pole():
    import importlib.util
    path = REPO / "crates" / "zwang-py" / "examples" / "cartpole_balance.py"
    spec = importlib.util.spec_from_file_location("cartpole_balance", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    states, report = example.run_zwang(5.0)
    assert report["status"] == "finished" and report["max_limit_violation"] == 0
    # The closed loop's slowest pole is -2 /s: from 0.2 rad, after 5 s the
    # state is within a few e-4 of upright (measured 3.6e-4 rad).
    assert abs(states[-1][1]) < 1e-3 and abs(states[-1][0]) < 1e-2
    # It settles: the state's size shrinks by the slowest pole's rate or
    # faster over the last two seconds, not merely small.
    late, last = np.linalg.norm(states[-201]), np.linalg.norm(states[-1])
    assert last < late * math.exp(-2.0 * 2.0) * 3


def load_example(name):
    import importlib.util
    path = REPO / "crates" / "zwang-py" / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def sampled_closed_loop(example):
    """The linearization's closed loop sampled as the example samples it:
    the control held over each period, ``x+ = (Phi - Gamma K) x`` with
    ``[Phi Gamma] = exp([[A, B], [0, 0]] T)`` (by the eigenvectors: the
    eigenvalues are distinct)."""
    a, b = example.linearization()
    n = len(b)
    aug = np.zeros((n + 1, n + 1))
    aug[:n, :n], aug[:n, n] = a, b
    lam, vec = np.linalg.eig(aug * example.PERIOD)
    e = (vec @ np.diag(np.exp(lam)) @ np.linalg.inv(vec)).real
    return e[:n, :n] - np.outer(e[:n, n], example.GAINS)


def test_the_acrobot_example_balances_the_links():
    example = load_example("acrobot_balance")
    states, controls, report = example.run_zwang(5.0)
    assert report["status"] == "finished"
    # The control saturates at first (the clamp is part of the loop), then
    # the links settle upright (measured 7.7e-9 rad after 5 s).
    assert np.abs(controls[:20]).max() == 1.0
    assert np.abs(states[-1][:2]).max() < 1e-6
    # In the linear regime the state shrinks at the sampled closed loop's
    # slowest rate (its spectral radius per period) over the last 2 s.
    rho = np.abs(np.linalg.eigvals(sampled_closed_loop(example))).max()
    late, last = np.linalg.norm(states[-201]), np.linalg.norm(states[-1])
    assert last < late * rho**200 * 3


def test_the_acrobot_follows_its_linearization_to_third_order():
    # From small tilts, without saturation, the run follows the sampled
    # linear closed loop (worked out by hand from two rods, not from the
    # engine), and the difference is the dynamics' odd nonlinearity: cubic
    # in the tilt, so halving the tilt divides it by 8 (a wrong mass
    # matrix or gravity term would leave a difference linear in the tilt).
    example = load_example("acrobot_balance")
    closed = sampled_closed_loop(example)
    worst, size = [], []
    for tilt in (0.002, 0.001):
        start = np.array([tilt, 0.0])
        states, controls, _ = example.run_zwang(3.0, start=start)
        assert np.abs(controls).max() < 1.0
        x, linear = np.concatenate([start, [0.0, 0.0]]), []
        for _ in states:
            x = closed @ x
            linear.append(x)
        worst.append(np.abs(states - np.array(linear)).max())
        size.append(np.abs(states).max())
    # Measured: 2.4e-3 and 2.9e-4 against states up to 0.37 and 0.18.
    assert worst[1] < 5e-3 * size[1], (worst, size)
    assert 6.0 < worst[0] / worst[1] < 10.0, worst
