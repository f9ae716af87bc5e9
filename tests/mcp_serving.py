"""A real `scn serve` process for the MCP tests: started on a free loopback port (`--port 0`,
read back from the endpoints it prints), stopped at the end, its log and stderr kept."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scn.regenerate import ROOT

BUNDLE = ROOT / "multi_mcp-servers"
SCN = Path(sys.executable).parent / "scn"


def scn_command() -> list[str]:
    found = str(SCN) if SCN.exists() else shutil.which("scn")
    if found is None:
        pytest.skip("the scn console script is not installed")
    return [found]


@contextlib.contextmanager
def serving(folder: Path, *extra: str) -> Iterator[dict[str, Any]]:
    """A `scn serve --transport http --port 0` process, the base URL it printed, its log file."""
    log, errors = folder / "served.jsonl", folder / "stderr.txt"
    args = ["serve", str(BUNDLE), "--mcp", "--transport", "http", "--port", "0"]
    args += ["--log", str(log), *extra]
    stderr = errors.open("wb")
    process = subprocess.Popen([*scn_command(), *args], stderr=stderr)
    try:
        for _ in range(300):  # up to 30 s for the process to print its endpoints
            if process.poll() is not None:
                raise AssertionError(errors.read_text())
            found = re.search(r"(http://127\.0\.0\.1:\d+)/mcp ", errors.read_text())
            if found:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("scn serve did not print its endpoints")
        url = found.group(1)
        port = int(url.rsplit(":", 1)[1])
        for _ in range(100):  # printed just before uvicorn starts accepting
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield {"url": url, "log": log, "process": process, "stderr": errors}
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        stderr.close()
