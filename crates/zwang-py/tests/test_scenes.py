"""Scenes: the runs of the command line (``zwang simulate --json --csv``)
on the repository's scenes; dicts, key paths and their errors."""

import csv
import json
import math
import warnings

import numpy as np
import pytest

import zwang
from conftest import REPO

# The spatial scenes (examples/scenes/space) run from the command line
# only for now: test_spatial_scenes_are_refused.
SCENES = sorted(
    p for p in (REPO / "examples" / "scenes").rglob("*.toml") if p.parent.name != "space"
)
BALL = REPO / "examples" / "scenes" / "bouncing_ball.toml"


def without_stats(summary):
    """The run's summary less `stats` (wall-clock seconds among them)."""
    return {k: v for k, v in summary.items() if k != "stats"}


@pytest.mark.parametrize("path", SCENES, ids=lambda p: p.name)
def test_simulate_equals_the_cli(cli, path, tmp_path):
    out_csv = tmp_path / "run.csv"
    code, out, err = cli("simulate", path, "--json", "--csv", out_csv)
    assert code in (0, 1), err
    run = zwang.simulate(zwang.Scene.from_file(path))
    expected = json.loads(out)
    assert json.loads(json.dumps(without_stats(run.summary))) == without_stats(expected)
    assert (run.status, run.time) == (expected["status"], expected["time"])
    assert run.events == expected["events"] and run.final == expected["final"]
    assert run.energy == expected["energy"]
    with open(out_csv, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    assert list(run.trajectory) == header
    for j, name in enumerate(header):
        column = [r[j] for r in rows]
        got = run.trajectory[name]
        if name.endswith(".mode"):
            assert got.tolist() == column
        else:
            assert got.dtype == np.float64
            want = np.array([float(x) for x in column])
            assert np.array_equal(got, want, equal_nan=True), name


def test_the_summary_without_samples_equals_the_cli_json_alone(cli):
    _, out, _ = cli("simulate", BALL, "--json")
    run = zwang.simulate(zwang.Scene.from_file(BALL), trajectory=False)
    assert without_stats(run.summary) == without_stats(json.loads(out))
    assert run.trajectory == {}


def test_from_dict_and_set(cli, tmp_path):
    scene = zwang.Scene.from_file(BALL)
    d = scene.to_dict()
    assert d["contact"][0]["restitution"] == 0.5
    again = zwang.Scene.from_dict(d)
    again.set("contact.floor.restitution", 0.7).set("scene.duration", 1.0)
    text = BALL.read_text().replace("restitution = 0.5", "restitution = 0.7").replace(
        "duration = 2.0", "duration = 1.0")
    path = tmp_path / "ball.toml"
    path.write_text(text)
    _, out, _ = cli("simulate", path, "--json")
    run = zwang.simulate(again, trajectory=False)
    assert without_stats(run.summary) == without_stats(json.loads(out))
    # set by index, in arrays, in the solver table
    again.set("contact[0].friction", 0.2).set("body.ball.position[1]", 2.0)
    again.set("solver.max_steps", 100000)
    assert again.to_dict()["body"][0]["position"] == [0.0, 2.0]


@pytest.mark.parametrize("key, value, says", [
    ("contact.floor.restitutio", 0.7, "contact.floor.restitutio: unknown key"),
    ("contact.roof.restitution", 0.7, "contact.roof.restitution: no [[contact]] named `roof`"),
    ("contact.floor.restitution", 1.5, "contact.floor.restitution"),
    ("scene.duration", -1.0, "scene.duration"),
    ("nope.x", 1.0, "nope.x: no table `nope`"),
    ("solver.frobnicate", 1, "solver.frobnicate: unknown key"),
])
def test_a_bad_key_or_value_raises_naming_it(key, value, says):
    scene = zwang.Scene.from_file(BALL)
    before = scene.to_dict()
    with pytest.raises(ValueError) as e:
        scene.set(key, value)
    assert str(e.value).startswith(says), str(e.value)
    assert scene.to_dict() == before


def test_malformed_scenes_raise_the_cli_line(cli, tmp_path):
    for text in ["[scene]\ndimension = 4\nduration = 1\n", "[scene\n", "[scene]\ndimension = 2\n"]:
        path = tmp_path / "bad.toml"
        path.write_text(text)
        code, _, err = cli("simulate", path, "--json")
        assert code == 2
        with pytest.raises(ValueError) as e:
            zwang.Scene.from_file(path)
        assert err.strip() == str(e.value)
    with pytest.raises(ValueError, match="body"):
        zwang.Scene.from_dict({"scene": {"dimension": 2, "duration": 1.0}})


def test_spatial_scenes_are_refused():
    for path in sorted((REPO / "examples" / "scenes" / "space").glob("*.toml")):
        with pytest.raises(ValueError, match="scene.dimension: the Python package runs planar"):
            zwang.Scene.from_file(path)
    with pytest.raises(ValueError, match="scene.dimension"):
        zwang.Scene.from_dict({"scene": {"dimension": 3, "duration": 1.0}})


def test_to_pandas():
    pd = pytest.importorskip("pandas")
    run = zwang.simulate(zwang.Scene.from_file(BALL))
    frame = run.to_pandas()
    assert list(frame.columns) == list(run.trajectory)
    assert len(frame) == len(run.trajectory["t"]) > 100
    assert isinstance(frame, pd.DataFrame)


def test_runs_and_sweeps_release_the_gil():
    import threading

    scene = zwang.Scene.from_file(REPO / "examples" / "scenes" / "contact" / "pyramid.toml")
    for work in (lambda: zwang.simulate(scene, trajectory=False),
                 lambda: zwang.sweep(scene, {"scene.duration": [1.0, 2.0]}, threads=1)):
        thread = threading.Thread(target=work)
        count = 0
        thread.start()
        while thread.is_alive():
            count += 1
        thread.join()
        # With the GIL held for the whole run this loop would not turn at all
        # while the run lasts (tens of milliseconds).
        assert count > 1000, count


def landing_box(on_unsolved, contact_tolerance=1e-300):
    """A planar box dropped tilted on a floor, time-stepped, its contact
    problems held to `contact_tolerance` (1e-300: what no step with
    contacts meets)."""
    return zwang.Scene.from_dict({
        "scene": {"dimension": 2, "duration": 0.2},
        "body": [
            {"name": "box", "kind": "rigid", "mass": 1.0, "position": [0.0, 0.12],
             "angle": 0.3, "shape": {"kind": "box", "half_extents": [0.1, 0.05]},
             "friction": 0.5},
            {"name": "floor", "kind": "fixed",
             "shape": {"kind": "halfplane", "normal": [0.0, 1.0]}, "friction": 0.5},
        ],
        "solver": {"stepping": "timestep", "time_step": 0.002,
                   "contact_tolerance": contact_tolerance, "on_unsolved": on_unsolved},
    })


def test_unsolved_steps_are_said_in_python(cli, tmp_path):
    scene = landing_box("warn")
    with pytest.warns(zwang.UnsolvedStepsWarning, match="steps ended above the contact tolerance"):
        run = zwang.simulate(scene, trajectory=False)
    assert run.status == "finished"
    assert 0 < run.unsolved_steps <= run.steps
    assert run.contact_error["tolerance"] == 1e-300
    assert run.contact_error["worst"] > 1e-300
    assert f"unsolved_steps={run.unsolved_steps}" in repr(run)
    # The command line says the same, with one warning line on stderr.
    path = tmp_path / "box.toml"
    path.write_text(scene_toml("warn"))
    code, out, err = cli("simulate", path, "--json")
    assert code == 0
    assert json.loads(out)["unsolved_steps"] == run.unsolved_steps
    assert err.startswith("warning: contact problems: ")

    # on_unsolved = "fail": the run ends before the first unsolved step.
    with pytest.warns(zwang.UnsolvedStepsWarning):
        failed = zwang.simulate(landing_box("fail"), trajectory=False)
    assert failed.status == "failed" and failed.unsolved_steps == 1
    assert "above the tolerance 1e-300" in failed.reason

    # Solved to the default tolerance: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solved = zwang.simulate(landing_box("warn", 1e-10), trajectory=False)
    assert solved.unsolved_steps == 0


def scene_toml(on_unsolved):
    """`landing_box` as a TOML file."""
    return f"""
[scene]
dimension = 2
duration = 0.2

[[body]]
name = "box"
kind = "rigid"
mass = 1.0
position = [0.0, 0.12]
angle = 0.3
shape = {{ kind = "box", half_extents = [0.1, 0.05] }}
friction = 0.5

[[body]]
name = "floor"
kind = "fixed"
shape = {{ kind = "halfplane", normal = [0.0, 1.0] }}
friction = 0.5

[solver]
stepping = "timestep"
time_step = 0.002
contact_tolerance = 1e-300
on_unsolved = "{on_unsolved}"
"""
