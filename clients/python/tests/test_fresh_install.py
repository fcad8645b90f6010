"""``pip install`` as the README says, in a fresh virtual environment, then the README's first
Python example, verbatim, with the installed package (not these sources) against the real engram."""

from __future__ import annotations

import hashlib
import re
import shlex
import subprocess
import sys
import tomllib
import venv
from pathlib import Path
from typing import List

from .support.engram_server import REPO_ROOT
from .test_readme import block, example_env, run_example

PACKAGE = Path(__file__).resolve().parents[1]
LOCK = PACKAGE / "requirements-test.txt"


def wheelhouse(installs: List[str]) -> Path:
    """The wheels those installs need, at the lock's versions, downloaded once into the git-ignored
    cache: the install itself then runs offline from them, in seconds rather than a minute."""
    pyproject = tomllib.loads((PACKAGE / "pyproject.toml").read_text("utf-8"))
    key = [LOCK.read_bytes(), (PACKAGE / "pyproject.toml").read_bytes(), "\n".join(installs).encode(), sys.version.encode()]
    digest = hashlib.sha256(b"\0".join(key)).hexdigest()
    house = REPO_ROOT / ".cache" / "python-client" / f"wheelhouse-{digest[:16]}"
    if (house / ".complete").exists():
        return house
    extras = {extra for line in installs for group in re.findall(r"\[([^\]]+)\]", line) for extra in group.split(",")}
    needed = [
        *pyproject["build-system"]["requires"],
        *pyproject["project"]["dependencies"],
        *(dependency for extra in sorted(extras) for dependency in pyproject["project"]["optional-dependencies"][extra]),
    ]
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "-d", str(house), "-c", str(LOCK), *needed]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"pip download failed:\n{done.stdout}\n{done.stderr}"
    (house / ".complete").write_text("")
    return house


def test_pip_install_then_the_readme_example_runs_verbatim(engram_server, api_key, chat, tmp_path):
    installs = [line for line in block("From Python", "bash").splitlines() if line.startswith("pip install")]
    assert installs, "the README names no pip install"
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = str(environment / "bin" / "python")
    env = example_env(engram_server.url, api_key, chat.url)
    env.update({"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse(installs)), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    for line in installs:
        done = subprocess.run([python, "-m", *shlex.split(line)], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line} failed:\n{done.stdout}\n{done.stderr}"

    where = subprocess.run([python, "-c", "import engram_client; print(engram_client.__file__)"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert where.returncode == 0 and Path(where.stdout.strip()).is_relative_to(environment), where.stdout + where.stderr

    lines = run_example(python, block("From Python", "python"), env, tmp_path).strip().split("\n")
    assert "PostgreSQL" in "\n".join(lines[:-1])
    assert lines[-1] == chat.reply
