"""Sweeps: the product in order, equal to runs one by one, to `zwang sweep`
and, on a Dask LocalCluster of two worker processes, to the local sweep,
also when a worker is killed in the middle."""

import json
import os
import signal
import threading
import time

import pytest

import zwang
from conftest import REPO

BALL = REPO / "examples" / "scenes" / "bouncing_ball.toml"
BIN = REPO / "examples" / "scenes" / "contact" / "boxes_into_bin.toml"
GRID = {"contact.floor.restitution": [0.3, 0.5, 0.7], "scene.duration": [1.0, 2.0]}
OUTPUTS = ["status", "time", "final.ball.position", "energy.final", "events[0].kind"]


def test_the_contract_sweep():
    scene = zwang.Scene.from_file(BALL)
    rows = zwang.sweep(scene, GRID, outputs=["status", "time", "final.ball.position"], client=None)
    assert [(r["contact.floor.restitution"], r["scene.duration"]) for r in rows] == [
        (0.3, 1.0), (0.3, 2.0), (0.5, 1.0), (0.5, 2.0), (0.7, 1.0), (0.7, 2.0)]
    assert list(rows[0]) == ["contact.floor.restitution", "scene.duration", "status", "time",
                             "final.ball.position"]
    assert all(r["status"] == "finished" for r in rows)
    assert [r["time"] for r in rows] == [1.0, 2.0] * 3


def test_rows_equal_runs_one_by_one():
    scene = zwang.Scene.from_file(BALL)
    rows = zwang.sweep(scene, GRID, outputs=OUTPUTS, threads=2)
    for row in rows:
        one = scene.copy()
        for key in GRID:
            one.set(key, row[key])
        run = zwang.simulate(one, trajectory=False)
        assert row["status"] == run.status and row["time"] == run.time
        assert row["final.ball.position"] == run.final["ball"]["position"]
        assert row["energy.final"] == run.energy["final"]
        assert row["events[0].kind"] == (run.events[0]["kind"] if run.events else None)
    assert rows == zwang.sweep(scene, GRID, outputs=OUTPUTS, threads=1)


def test_a_list_of_sets_and_an_instant():
    inst = zwang.Instant.from_file(REPO / "examples" / "contact.json")
    doc = inst.to_dict()
    sets = [{"force[1]": f} for f in (-9.81, 0.0, 5.0)]
    rows = zwang.sweep(inst, sets, outputs=["status", "acceleration", "check.verdict"])
    for s, row in zip(sets, rows):
        one = zwang.Instant.from_dict(dict(doc, force=[s["force[1]"] if i == 1 else x
                                                      for i, x in enumerate(doc["force"])]))
        assert row["acceleration"] == zwang.solve(one).acceleration.tolist()
        assert row["check.verdict"] == zwang.check(one).verdict


@pytest.mark.parametrize("grid, outputs, says", [
    ({"contact.floor.restitution": [0.5, 1.5]}, None, "contact.floor.restitution"),
    ({"contact.flor.restitution": [0.5]}, None, "contact.flor.restitution"),
    ({"scene.duration": [1.0]}, ["finale.ball"], "output `finale.ball`"),
])
def test_bad_sweeps_raise_before_running(grid, outputs, says):
    with pytest.raises(ValueError, match=says.replace("[", r"\[").replace(".", r"\.")):
        zwang.sweep(zwang.Scene.from_file(BALL), grid, outputs=outputs)


def test_the_cli_sweep_gives_the_same_rows(cli, tmp_path):
    spec = tmp_path / "spec.toml"
    lines = [f'scene = "{BALL.as_posix()}"', f"outputs = {json.dumps(OUTPUTS)}", "[grid]"]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in GRID.items()]
    spec.write_text("\n".join(lines) + "\n")
    shards = []
    for i in range(3):
        code, out, err = cli("sweep", spec, "--shard", f"{i}/3")
        assert code == 0, err
        shards += [json.loads(line) for line in out.splitlines()]
    assert [r.pop("run") for r in shards] == list(range(6))
    rows = zwang.sweep(zwang.Scene.from_file(BALL), GRID, outputs=OUTPUTS)
    assert shards == json.loads(json.dumps(rows))


def test_dataframe():
    pd = pytest.importorskip("pandas")
    rows = zwang.sweep(zwang.Scene.from_file(BALL), GRID)
    frame = zwang.dataframe(rows)
    assert isinstance(frame, pd.DataFrame) and len(frame) == 6
    assert list(frame.columns) == list(GRID) + ["status", "time"]


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_a_local_cluster_gives_the_local_rows(client):
    scene = zwang.Scene.from_file(BALL)
    local = zwang.sweep(scene, GRID, outputs=OUTPUTS)
    for chunk_size in (None, 1, 4):
        assert zwang.sweep(scene, GRID, outputs=OUTPUTS, client=client,
                           chunk_size=chunk_size) == local
    with pytest.raises(ValueError, match="contact.floor.restitution"):
        zwang.sweep(scene, {"contact.floor.restitution": [2.0]}, client=client)


def test_a_killed_worker_loses_no_run(client):
    scene = zwang.Scene.from_file(BIN)
    grid = {"scene.duration": [1.0 + 0.01 * k for k in range(120)]}
    outputs = ["status", "time", "final.crate0.position", "steps"]
    local = zwang.sweep(scene, grid, outputs=outputs)
    pids = client.run(os.getpid)
    killed = []

    def kill():
        time.sleep(0.5)
        pid = sorted(pids.values())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill)
    killer.start()
    start = time.perf_counter()
    rows = zwang.sweep(scene, grid, outputs=outputs, client=client, chunk_size=2)
    elapsed = time.perf_counter() - start
    killer.join()
    print(f"sweep {elapsed:.2f} s, worker {killed} killed at 0.5 s")
    assert killed and elapsed > 0.5, "the worker was killed after the sweep ended"
    assert len(rows) == 120
    assert rows == local
    client.wait_for_workers(2, timeout=60)
