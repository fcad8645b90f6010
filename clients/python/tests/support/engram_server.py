"""A real embedded engram for the tests: the repository's server, started from its TypeScript
sources (transpiled on load, as the repository's own CLI specs do, so no build is needed) on a
fresh data directory and a free loopback port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

REPO_ROOT = Path(__file__).resolve().parents[4]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class EngramServer:
    url: str
    #: API key → tenant, one tenant per key.
    keys: Dict[str, str]
    process: subprocess.Popen
    data_dir: str
    log_path: str
    _handed_out: List[str] = field(default_factory=list)

    def fresh_key(self) -> str:
        """A key no test has used yet: a tenant of its own (its own rate-limit bucket, its own users)."""
        unused = [key for key in self.keys if key.startswith("key-") and key not in self._handed_out]
        if not unused:
            raise RuntimeError("the test server ran out of tenant keys: raise TENANTS in engram_server.py")
        self._handed_out.append(unused[0])
        return unused[0]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        Path(self.log_path).unlink(missing_ok=True)


TENANTS = 80


def start_engram(extra_env: Dict[str, str]) -> EngramServer:
    port = free_port()
    data_dir = tempfile.mkdtemp(prefix="engram-pyclient-")
    keys = {f"key-{n}": f"tenant{n}" for n in range(TENANTS)}
    keys["key-readme"] = "readme"
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "ENGRAM_DATA_DIR": data_dir,
        "LOG_LEVEL": "error",
        "ENGRAM_API_KEYS": ",".join(f"{key}={tenant}" for key, tenant in keys.items()),
        **extra_env,
    }
    log_path = data_dir + ".log"
    node = shutil.which("node") or "node"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [node, "-r", str(REPO_ROOT / "test/support/ts-register.js"), str(REPO_ROOT / "apps/engram/main.ts"), "start"],
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    server = EngramServer(url=url, keys=keys, process=process, data_dir=data_dir, log_path=log_path)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"engram exited with {process.returncode}:\n{Path(log_path).read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
                if answer.status == 200:
                    return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"engram did not answer /health within 180 s:\n{Path(log_path).read_text()}")
