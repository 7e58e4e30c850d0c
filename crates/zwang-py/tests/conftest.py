"""Shared by the tests: the repository's root and the command line to
compare with (``ZWANG_CLI``, default ``target/release/zwang``, built by
``cargo build --release``); tests that need it are skipped without it."""

import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def cli_path():
    path = os.environ.get("ZWANG_CLI") or str(REPO / "target" / "release" / "zwang")
    return path if os.path.exists(path) else shutil.which("zwang")


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if path is None:
        pytest.skip("the zwang command line is not built (cargo build --release)")

    def run(*args):
        p = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    return run
