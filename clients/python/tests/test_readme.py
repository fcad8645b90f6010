"""The README's Python examples, verbatim: each ```python block of "Use it from your app" runs as a
script (in this process, whose frameworks are imported already: a subprocess per example cost half
a minute) against the real engram (a tenant of its own) and the chat-model stub.
test_fresh_install.py runs the first one again in a fresh virtual environment, as a subprocess."""

from __future__ import annotations

import ast
import json
import os
import re
import runpy
import subprocess
from pathlib import Path
from typing import Dict

import pytest

from .support.engram_server import REPO_ROOT

SRC = Path(__file__).resolve().parents[1] / "src"


def readme_section(heading: str) -> str:
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    app = readme.split("## Use it from your app", 1)[1].split("\n## ", 1)[0]
    return app.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]


def block(heading: str, language: str) -> str:
    found = re.search(rf"```{language}\n(.*?)```", readme_section(heading), re.S)
    assert found, f"no ```{language} block under {heading}"
    return found.group(1)


def example_env(engram_url: str, api_key: str, chat_url: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "OPENAI_"))}
    return {
        **env,
        "ENGRAM_URL": engram_url,
        "ENGRAM_API_KEY": api_key,
        "OPENAI_BASE_URL": chat_url,
        "OPENAI_API_BASE": chat_url,
        "OPENAI_API_KEY": "test",
        "OPENAI_AGENTS_DISABLE_TRACING": "1",
    }


def run_example(python: str, code: str, env: Dict[str, str], tmp_path: Path) -> str:
    script = tmp_path / "example.py"
    script.write_text(code, "utf-8")
    done = subprocess.run([python, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the example failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


EXAMPLES = ["From Python", "LangGraph and LangChain (Python)", "OpenAI Agents SDK (Python)", "LlamaIndex (Python)"]


@pytest.mark.parametrize("heading", EXAMPLES)
def test_the_readme_example_runs_verbatim(heading, engram_server, api_key, chat, tmp_path, monkeypatch, capsys):
    for name, value in example_env(engram_server.url, api_key, chat.url).items():
        monkeypatch.setenv(name, value)
    script = tmp_path / "example.py"
    script.write_text(block(heading, "python"), "utf-8")
    runpy.run_path(str(script), run_name="__main__")
    lines = capsys.readouterr().out.strip().split("\n")
    # Recalled, then given to the model: the question itself does not name PostgreSQL.
    assert "PostgreSQL" in json.dumps(chat.requests[0]["body"], ensure_ascii=False)
    if heading == "From Python":
        assert "PostgreSQL" in "\n".join(lines[:-1])  # the context block
        assert lines[-1] == chat.reply
    elif heading.startswith("LangGraph"):
        assert lines[0] == chat.reply
        assert "我们的数据库用 PostgreSQL" in ast.literal_eval(lines[1])  # the retriever's documents, printed as a list
    else:
        assert lines[-1] == chat.reply


def test_the_readme_names_every_extra_the_package_has():
    import tomllib

    extras = tomllib.loads((SRC.parent / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    section = readme_section("From Python")
    for extra in extras:
        assert f"`{extra}`" in section or f"[{extra}]" in section, extra
