"""The README's Python snippets run as written, and so do the examples."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import REPO

HERE = pathlib.Path(__file__).resolve().parents[1]


def test_the_readme_snippets_run_as_written(monkeypatch):
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Python"):]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(REPO)
    scope = {}
    exec(compile(blocks[0], "README.md", "exec"), scope)
    assert scope["sol"].status == "solved" and len(scope["rows"]) == 6
    pytest.importorskip("distributed")
    try:
        exec(compile(blocks[1], "README.md", "exec"), scope)
        assert len(scope["rows"]) == 101
    finally:
        if "client" in scope:
            scope["client"].cluster.close()
            scope["client"].close()


@pytest.mark.parametrize("script, args, says", [
    ("painleve_map.py", ["--cells", "12"], "Painleve from mu"),
    ("exact_vs_convex.py", ["--cells", "3"], "convex: off the incline"),
    ("cartpole_balance.py", [], "balanced: after 5 s"),
    ("acrobot_balance.py", [], "balanced: after 5 s"),
])
def test_the_examples_run(script, args, says, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, str(HERE / "examples" / script), *args],
                       cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert says in p.stdout
