"""Instants: the answers of the command line, on the repository's instant
files; bad arrays raise ValueError with the command line's message."""

import json
import math

import numpy as np
import pytest

import zwang
from conftest import REPO

FILES = sorted(
    p for p in list((REPO / "examples").glob("*.json")) + list((REPO / "tests" / "data").rglob("*.json"))
    if not p.name.endswith(".expected.json") and "malformed" not in p.parts
    and "contact-problems" not in p.parts
)
MALFORMED = sorted((REPO / "tests" / "data").rglob("malformed/*.json"))


def same(a, b, path="$"):
    """Equal JSON-like values; numbers equal bit for bit (NaN as null)."""
    if isinstance(a, np.ndarray):
        a = [None if math.isnan(x) else x for x in a.tolist()]
    if isinstance(a, dict) and isinstance(b, dict):
        assert sorted(a) == sorted(b), path
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert b is None, path
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def without_times(v):
    if isinstance(v, dict):
        return {k: without_times(x) for k, x in v.items() if k != "time_us"}
    if isinstance(v, list):
        return [without_times(x) for x in v]
    return v


def test_the_files_are_found():
    assert len(FILES) > 20 and len(MALFORMED) > 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_solve_check_compare_equal_the_cli(cli, path):
    inst = zwang.Instant.from_file(path)
    code, out, err = cli("solve", path, "--json")
    sol = zwang.solve(inst)
    same(json.loads(json.dumps(sol.to_dict())), json.loads(out))
    assert sol.status == json.loads(out)["status"]
    assert (code == 0) == sol.solved
    if sol.status != "not_applicable":
        assert sol.acceleration.dtype == np.float64
        same(sol.acceleration, json.loads(out)["acceleration"])
        same(sol.multipliers_eq, json.loads(out)["multipliers"]["equalities"])
        same(sol.multipliers_in, json.loads(out)["multipliers"]["inequalities"])
    _, out, _ = cli("check", path, "--json")
    report = zwang.check(inst)
    same(json.loads(json.dumps(report)), json.loads(out))
    assert report.verdict == json.loads(out)["verdict"]
    _, out, _ = cli("compare", path, "--json")
    same(without_times(json.loads(json.dumps(zwang.compare(inst)))), without_times(json.loads(out)))


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.name)
def test_a_malformed_file_raises_the_cli_message(cli, path):
    code, out, err = cli("solve", path)
    assert code == 2 and out == ""
    with pytest.raises(ValueError) as e:
        zwang.Instant.from_file(path)
    line = err.strip().removeprefix("error: ")
    assert line.startswith(str(e.value)), (line, str(e.value))


def test_arrays_give_the_file_answer():
    inst = zwang.Instant.from_file(REPO / "examples" / "pendulum.json")
    doc = inst.to_dict()
    mass, force = np.array(doc["mass"], dtype=float), np.array(doc["force"])
    rows = lambda k: (np.array(doc[k]["A"], dtype=float), np.array(doc[k]["b"])) if doc.get(k) else None
    again = zwang.Instant(mass=mass, force=force, equalities=rows("equalities"),
                          inequalities=rows("inequalities"))
    a, b = zwang.solve(inst), zwang.solve(again)
    assert np.array_equal(a.acceleration, b.acceleration)
    assert np.array_equal(a.multipliers_eq, b.multipliers_eq)


def test_scipy_sparse_matrices():
    sparse = pytest.importorskip("scipy.sparse")
    m = np.diag([2.0, 2.0, 1.0])
    a = np.array([[0.0, 1.0, 0.5]])
    dense = zwang.Instant(mass=m, force=[0.0, -19.62, 0.0], inequalities=(a, [0.0]))
    for fmt in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix):
        s = zwang.Instant(mass=fmt(m), force=np.array([0.0, -19.62, 0.0]),
                          inequalities=(fmt(a), np.array([0.0])))
        x, y = zwang.solve(dense), zwang.solve(s)
        assert y.status == "solved"
        np.testing.assert_allclose(x.acceleration, y.acceleration, rtol=0, atol=1e-14)
        np.testing.assert_allclose(x.multipliers_in, y.multipliers_in, rtol=0, atol=1e-14)


def test_friction_entries_and_attributes():
    inst = zwang.Instant(
        mass=np.eye(2), force=[1.0, -9.81], inequalities=([[0.0, 1.0]], [0.0]),
        friction=[{"normal": {"set": "inequalities", "row": 0}, "tangent": np.array([1.0, 0.0]),
                   "mu": 0.3, "slip": 1}])
    sol = zwang.solve(inst)
    assert sol.form == "variational" and sol.modes == ["slide"]
    assert isinstance(sol.normal_forces, np.ndarray)
    np.testing.assert_allclose(sol.acceleration, [1.0 - 0.3 * 9.81, 0.0], atol=1e-12)
    assert zwang.check(inst).verdict == "equivalent"
    with pytest.raises(ValueError, match="--backend clarabel"):
        zwang.solve(inst, backend="clarabel")
    with pytest.raises(ValueError, match="unknown backend `fast`"):
        zwang.solve(zwang.Instant(mass=[1.0], force=[1.0]), backend="fast")


@pytest.mark.parametrize("kwargs, message", [
    (dict(mass=np.array([[1.0, 1.0], [0.0, 1.0]]), force=[0.0, 0.0]),
     "`mass`: not symmetric, M[0][1] = 1 but M[1][0] = 0"),
    (dict(mass=np.array([[1.0, np.nan], [np.nan, 1.0]]), force=[0.0, 0.0]),
     "`mass[0][1]`: entry (value) is not finite (NaN)"),
    (dict(mass=np.eye(2), force=np.array([0.0, np.inf])),
     "`force[1]`: entry (value) is not finite (inf)"),
    (dict(mass=np.eye(3), force=[0.0, 0.0]), "`force`: has length 2, expected 3"),
    (dict(mass=np.ones((2, 3)), force=[0.0, 0.0]), "`mass`: must be square, found 2 x 3"),
    (dict(mass=np.array([[1.0, 2.0], [2.0, 1.0]]), force=[0.0, 0.0]),
     "`mass`: not positive definite (the factorization fails at coordinate 1)"),
    (dict(mass=np.eye(2), force=[0.0, 0.0], equalities=(np.ones((1, 3)), [0.0])), "`equalities"),
    (dict(mass=np.eye(2), force=[0.0, 0.0], inequalities=(np.ones((1, 2)), [0.0, 1.0])),
     "`inequalities.b`: has length 2, but `inequalities.A` has 1 rows"),
    (dict(mass=np.eye(2), force=[[0.0, 0.0]]), "`force[0]`: expected a number, found an array"),
])
def test_bad_arrays_raise_value_error(kwargs, message):
    with pytest.raises(ValueError) as e:
        zwang.Instant(**kwargs)
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


def test_a_bad_array_gives_the_message_of_the_same_file(cli, tmp_path):
    doc = {"mass": [[1.0, 1.0], [0.0, 1.0]], "force": [0.0, 0.0]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    _, _, err = cli("solve", path)
    with pytest.raises(ValueError) as e:
        zwang.Instant(mass=np.array(doc["mass"]), force=np.array(doc["force"]))
    assert err.strip() == "error: " + str(e.value)


def test_pickling_keeps_the_instant():
    import pickle

    inst = zwang.Instant.from_file(REPO / "examples" / "contact.json")
    again = pickle.loads(pickle.dumps(inst))
    assert np.array_equal(zwang.solve(inst).acceleration, zwang.solve(again).acceleration)
