"""zwang: Gauss's principle of least constraint with exact Coulomb friction.

Instants (one frozen QP over accelerations) from NumPy arrays, SciPy sparse
matrices or instant files; scenes (TOML files or dicts) run over time;
parameter sweeps, locally in parallel or on a Dask cluster.

The answers, field names and strings are those of the command line
``zwang`` (``zwang solve --json``, ``zwang check --json``, ``zwang compare
--json``, ``zwang simulate --json --csv``): both call the same library.
Malformed input raises ``ValueError`` with the command line's one-line
message. Solves, runs and sweeps release the GIL.

>>> import numpy as np, zwang
>>> inst = zwang.Instant(mass=np.eye(2), force=[0.0, -9.81],
...                      inequalities=(np.array([[0.0, 1.0]]), [0.0]))
>>> sol = zwang.solve(inst)
>>> sol.status, sol.acceleration.tolist(), sol.multipliers_in.tolist()
('solved', [0.0, 0.0], [9.81])
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _zwang

__version__ = _zwang.__version__

__all__ = [
    "Instant",
    "Solution",
    "Report",
    "Scene",
    "Run",
    "Simulation",
    "UnsolvedStepsWarning",
    "solve",
    "check",
    "compare",
    "simulate",
    "sweep",
    "dataframe",
    "__version__",
]

Solution = _zwang.Solution
Simulation = _zwang.Simulation


def _matrix(a: Any) -> Any:
    """A matrix as the instant file has it: a ``scipy.sparse`` matrix as
    triplets; anything else (NumPy arrays, nested lists) as it is, read by
    the instant file's parser."""
    if hasattr(a, "tocoo") and hasattr(a, "nnz"):  # scipy.sparse
        coo = a.tocoo()
        return {
            "shape": [int(coo.shape[0]), int(coo.shape[1])],
            "rows": np.asarray(coo.row, dtype=np.int64),
            "cols": np.asarray(coo.col, dtype=np.int64),
            "vals": np.asarray(coo.data, dtype=np.float64),
        }
    return a


def _rows(key: str, rows: Any) -> Any:
    if rows is None or isinstance(rows, Mapping):
        return rows
    try:
        a, b = rows
    except (TypeError, ValueError):
        raise ValueError(f"`{key}`: expected a pair (A, b)") from None
    return {"A": _matrix(a), "b": b}


class Instant:
    """One instant: the mass matrix ``M`` (n x n, symmetric positive
    definite; a 2-D array, a ``scipy.sparse`` matrix, or a 1-D array for a
    diagonal mass), the applied force ``Q`` (length n), equality rows
    ``A_eq a = b_eq`` and inequality rows ``A_in a >= b_in`` as pairs
    ``(A, b)`` (``A`` dense or sparse), and optionally Coulomb friction
    (``friction``: entries of the instant file, ``{"normal": {"set":
    "inequalities", "row": 0}, "tangent": [...], "mu": 0.3, "slip": -1}``)
    and sticking contacts (``sticking``). The keys and their meaning are
    those of the instant file (``docs/instant-format.md``); a malformed
    array raises ``ValueError`` with the message ``zwang solve`` prints for
    such a file (``"`mass`: not symmetric, M[0][1] = 1 but M[1][0] = 0"``).
    """

    __slots__ = ("_native",)

    def __init__(self, mass: Any, force: Any, equalities: Any = None,
                 inequalities: Any = None, friction: Optional[Sequence[Mapping]] = None,
                 sticking: Optional[Sequence[Mapping]] = None,
                 name: Optional[str] = None, order: Optional[Sequence[int]] = None) -> None:
        doc: Dict[str, Any] = {"mass": _matrix(mass), "force": force}
        if name is not None:
            doc["name"] = name
        if equalities is not None:
            doc["equalities"] = _rows("equalities", equalities)
            if order is not None:
                doc["equalities"] = dict(doc["equalities"], order=list(order))
        if inequalities is not None:
            doc["inequalities"] = _rows("inequalities", inequalities)
        if friction is not None:
            doc["friction"] = list(friction)
        if sticking is not None:
            doc["sticking"] = list(sticking)
        self._native = _zwang.Instant._from_dict(doc)

    @classmethod
    def _wrap(cls, native: Any) -> "Instant":
        self = cls.__new__(cls)
        self._native = native
        return self

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]) -> "Instant":
        """Reads an instant file (JSON, ``docs/instant-format.md``)."""
        return cls._wrap(_zwang.Instant.from_file(os.fspath(path)))

    @classmethod
    def from_json(cls, text: str) -> "Instant":
        """Reads an instant from the text of an instant file."""
        return cls._wrap(_zwang.Instant.from_json(text))

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> "Instant":
        """Reads an instant from the instant file's JSON as a dict."""
        return cls._wrap(_zwang.Instant._from_dict(doc))

    def to_dict(self) -> Dict[str, Any]:
        """The instant file's JSON, as a dict."""
        return self._native.to_dict()

    @property
    def n(self) -> int:
        """The number of coordinates."""
        return self._native.n

    @property
    def name(self) -> Optional[str]:
        """The label, if any."""
        return self._native.name

    def __reduce__(self):
        return (Instant.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return repr(self._native)


class Report(dict):
    """A dict (the command line's JSON object) whose keys are also
    attributes: ``zwang.check(inst).verdict``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def solve(instant: Instant, backend: str = "auto") -> "Solution":
    """Solves the instant as ``zwang solve FILE --json --backend NAME``:
    the Gauss QP (backends ``auto``, ``direct``, ``active-set``,
    ``clarabel``), or with ``friction``/``sticking`` entries the Coulomb
    contact problem (the Newton answer, ``form == "variational"``), or
    ``status == "not_applicable"`` for constraints of higher order.

    The result has ``status``, ``acceleration``, ``multipliers_eq``,
    ``multipliers_in`` (NumPy float64 arrays), ``compulsion``, and every
    other key of the command line's object as an attribute (``backend``,
    ``residuals``, ``iterations``, ``form``, ``verdict``, ``modes``,
    ``normal_forces``...); ``to_dict()`` gives the whole object."""
    return _zwang.solve(instant._native, backend)


def check(instant: Instant) -> Report:
    """The equivalence verdict, as ``zwang check FILE --json``:
    ``verdict`` (``equivalent``, ``not_equivalent``,
    ``painleve_inconsistent``, ``painleve_indeterminate``,
    ``stationary_only``), ``coupling``, ``contacts``, ``reason``..."""
    return Report(_zwang.check(instant._native))


def compare(instant: Instant) -> Dict[str, Any]:
    """Every form on the instant, as ``zwang compare FILE --json``: a dict
    with ``forms``, ``max_difference``, ``ideal_difference``,
    ``non_equivalence``, ``verdict``..."""
    return _zwang.compare(instant._native)


class Scene:
    """A scene (``docs/scene-format.md``): a TOML file, or its tables as a
    dict. ``set(key, value)`` changes a parameter by key path."""

    __slots__ = ("_native",)

    def __init__(self, d: Mapping[str, Any]) -> None:
        self._native = _zwang.Scene.from_dict(d)

    @classmethod
    def _wrap(cls, native: Any) -> "Scene":
        self = cls.__new__(cls)
        self._native = native
        return self

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]) -> "Scene":
        """Reads a scene file (TOML)."""
        return cls._wrap(_zwang.Scene.from_file(os.fspath(path)))

    @classmethod
    def from_toml(cls, text: str) -> "Scene":
        """Reads a scene from the text of a scene file."""
        return cls._wrap(_zwang.Scene.from_toml(text))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Scene":
        """Reads a scene from the TOML file as a dict: ``{"scene": {...},
        "body": [{...}, ...], "contact": [...], "solver": {...}}``."""
        return cls._wrap(_zwang.Scene.from_dict(d))

    def set(self, key: str, value: Any) -> "Scene":
        """Sets a parameter by key path: ``TABLE.NAME.KEY`` for the named
        tables (``contact.floor.restitution``, ``body.ball.mass``),
        ``TABLE[i].KEY`` for any array table (``joint[0].length``),
        ``scene.KEY``, ``solver.KEY``, ``frame.KEY``; inline tables and
        arrays go on (``body.ball.position[1]``). A bad key or value raises
        ``ValueError`` naming the key, and the scene stays as it was.
        Returns the scene."""
        self._native.set(key, value)
        return self

    def copy(self) -> "Scene":
        """An independent copy."""
        return Scene.from_dict(self.to_dict())

    def to_dict(self) -> Dict[str, Any]:
        """The scene's tables as a dict."""
        return self._native.to_dict()

    @property
    def name(self) -> Optional[str]:
        """``scene.name``."""
        return self._native.name

    @property
    def duration(self) -> float:
        """``scene.duration``, s."""
        return self._native.duration

    def __reduce__(self):
        return (Scene.from_dict, (self.to_dict(),))

    def __repr__(self) -> str:
        return repr(self._native)


def _columns(csv: str) -> Dict[str, np.ndarray]:
    lines = csv.splitlines()
    header = lines[0].split(",")
    cells = [line.split(",") for line in lines[1:]]
    columns = list(zip(*cells)) if cells else [() for _ in header]
    out: Dict[str, np.ndarray] = {}
    for name, column in zip(header, columns):
        if name.endswith(".mode"):
            out[name] = np.array(column, dtype=str)
        else:
            out[name] = np.array([float(x) for x in column], dtype=np.float64)
    return out


class UnsolvedStepsWarning(RuntimeWarning):
    """A run integrated steps whose contact problem ended above the
    solver's tolerance (``[solver] on_unsolved = "warn"``): its answer is
    the best found, not one to the tolerance. ``Run.unsolved_steps`` and
    ``Run.contact_error`` say how many and how far."""


class Run:
    """A scene's run: ``status``, ``time``, ``events``, ``final``,
    ``energy``, ``unsolved_steps``, ``contact_error`` as in ``zwang
    simulate --json`` (``summary`` is the whole object), and
    ``trajectory``: ``"t"`` and every column of ``zwang simulate --csv``
    (``ball.x``, ``ball.vy``, ``floor.normal_force``, ``floor.mode``...)
    as NumPy arrays, one entry per sample and event."""

    def __init__(self, summary: Dict[str, Any], trajectory: Optional[Dict[str, np.ndarray]]):
        self.summary = summary
        self.trajectory = trajectory if trajectory is not None else {}

    status = property(lambda self: self.summary["status"], doc="finished, painleve or failed")
    time = property(lambda self: self.summary["time"], doc="where the run ended, s")
    events = property(lambda self: self.summary["events"], doc="list of event dicts")
    final = property(lambda self: self.summary["final"], doc="body name -> state dict")
    energy = property(lambda self: self.summary["energy"], doc='{"initial": J, "final": J}')
    steps = property(lambda self: self.summary["steps"], doc="steps taken")
    reason = property(lambda self: self.summary.get("reason"), doc="why it failed, or None")
    unsolved_steps = property(
        lambda self: self.summary.get("unsolved_steps", 0),
        doc="steps whose contact problem ended above the tolerance")
    contact_error = property(
        lambda self: self.summary.get("contact_error"),
        doc='{"worst", "time", "tolerance"} of the time stepper\'s contact problems, or None')
    start_projection = property(
        lambda self: self.summary.get("start_projection"),
        doc="how the start was moved onto its joints or apart, or None")

    def to_pandas(self):
        """The trajectory as a ``pandas.DataFrame`` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.trajectory)

    def __repr__(self) -> str:
        unsolved = f", unsolved_steps={self.unsolved_steps}" if self.unsolved_steps else ""
        return (f"Run(status={self.status!r}, time={self.time!r}, "
                f"events={len(self.events)}, samples={len(self.trajectory.get('t', ()))}"
                f"{unsolved})")


def simulate(scene: Scene, trajectory: bool = True) -> Run:
    """Runs the scene to its duration, as ``zwang simulate SCENE --json
    --csv FILE``. ``trajectory=False`` samples only the ends (as ``zwang
    simulate --json`` alone: faster, and the trajectory is empty). A scene
    the steppers cannot run raises ``ValueError``."""
    summary, csv = _zwang.simulate(scene._native, trajectory)
    run = Run(summary, _columns(csv) if csv is not None else None)
    if run.unsolved_steps:
        e = run.contact_error or {}
        warnings.warn(
            f"{run.unsolved_steps} of {run.steps} steps ended above the contact tolerance "
            f"{e.get('tolerance')} (worst error {e.get('worst')} at t = {e.get('time')} s)",
            UnsolvedStepsWarning, stacklevel=2)
    return run


#: The outputs of a sweep when none are named.
DEFAULT_OUTPUTS = {"scene": ["status", "time"], "instant": ["status"]}


def _grid(grid: Union[Mapping[str, Iterable], Sequence[Mapping[str, Any]]]):
    """The keys and the parameter sets of a grid (a dict of lists: their
    cartesian product, the first key slowest) or of a list of sets."""
    if isinstance(grid, Mapping):
        keys = list(grid)
        lists = [list(grid[k]) for k in keys]
        return keys, [list(p) for p in itertools.product(*lists)]
    sets = list(grid)
    keys = list(sets[0]) if sets else []
    for s in sets:
        if list(s) != keys:
            raise ValueError(f"sweep: every parameter set has the keys {keys}, found {list(s)}")
    return keys, [[s[k] for k in keys] for s in sets]


def _table(keys, points, outputs, got):
    """The rows: the parameters by key, then the outputs by path."""
    return [{**dict(zip(keys, p)), **dict(zip(outputs, g))} for p, g in zip(points, got)]


def _run_chunk(subject, keys, points, outputs):
    """One Dask task: a chunk of runs, one thread."""
    return _zwang.run_points(subject._native, keys, points, outputs, 1)


def sweep(subject: Union[Scene, Instant],
          grid: Union[Mapping[str, Iterable], Sequence[Mapping[str, Any]]],
          outputs: Optional[Sequence[str]] = None,
          client: Any = None,
          threads: Optional[int] = None,
          chunk_size: Optional[int] = None) -> List[Dict[str, Any]]:
    """Runs ``subject`` once per parameter set of ``grid``: a dict of key
    paths to lists of values (the cartesian product, the first key varying
    slowest, as ``itertools.product``), or a list of dicts (the sets as
    given). Returns one dict per run, in order: the parameters by key
    path, then the outputs by path.

    Outputs are paths into the JSON of the run: for a scene that of
    ``zwang simulate --json`` (``status``, ``time``, ``final.ball.position``,
    ``energy.final``, ``events``, ``events[0].kind``; default ``["status",
    "time"]``), for an instant that of ``zwang solve --json``
    (``acceleration``, ``multipliers.inequalities``...), ``check.KEY``
    and ``compare.KEY``. A path a run's object lacks is ``None``.

    ``client=None`` runs locally on ``threads`` threads (default: every
    core), the GIL released. A ``dask.distributed.Client`` runs chunks of
    ``chunk_size`` runs as tasks on its cluster (default: about four
    chunks per worker) and gathers the rows in order; a task whose worker
    dies is run again elsewhere by Dask. Every parameter set is read and
    checked before any runs: a bad key or value raises ``ValueError``
    naming it."""
    kind = "scene" if isinstance(subject, Scene) else "instant"
    if not isinstance(subject, (Scene, Instant)):
        raise ValueError("sweep: give a zwang.Scene or a zwang.Instant")
    outputs = list(DEFAULT_OUTPUTS[kind] if outputs is None else outputs)
    keys, points = _grid(grid)
    if client is None:
        got = _zwang.run_points(subject._native, keys, points, outputs,
                                threads or os.cpu_count() or 1)
        return _table(keys, points, outputs, got)
    _zwang.check_points(subject._native, keys, points, outputs)
    if not points:
        return []
    if chunk_size is None:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        chunk_size = max(1, math.ceil(len(points) / (4 * workers)))
    chunks = [points[i:i + chunk_size] for i in range(0, len(points), chunk_size)]
    futures = client.map(_run_chunk, [subject] * len(chunks), [keys] * len(chunks),
                         chunks, [outputs] * len(chunks), pure=False)
    got = [row for rows in client.gather(futures) for row in rows]
    return _table(keys, points, outputs, got)


def dataframe(rows: Sequence[Mapping[str, Any]]):
    """The rows of a sweep as a ``pandas.DataFrame`` (needs pandas)."""
    import pandas as pd

    return pd.DataFrame(list(rows))
