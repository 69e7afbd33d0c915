"""Replay of the Space's image build on this machine, without a container daemon.

``python docgemma/space_replay.py WORKDIR`` reads the ``Dockerfile`` and does what the
Space builder does with it, in an empty folder: copies exactly the files its ``COPY``
lines name (a missing one fails the replay), runs its install script
(``docgemma/install_steps.py``, the ``RUN`` line that names it) into a fresh virtualenv,
starts the app with the image's ``CMD`` and ``ENV`` (all interfaces, the Space's port
variable), and asks one question over the app's HTTP API. What cannot run without a
container — the base image and its Debian packages — is left to the machine.

Only the port differs when ``--port`` is given (the same variable, another number), and
the API gets one key (``DOCGEMMA_API_KEYS``), since the API answers no request without one.
Pip's cache and the engine's wheel cache (``~/.cache/docgemma/engine``) are reused, so a
replay after ``make test`` costs minutes; on a clean machine it compiles and downloads
what the image build would. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL_SCRIPT = "docgemma/install_steps.py"
PORT_VARIABLE = "GRADIO_SERVER_PORT"
QUESTION = "What are the symptoms of pneumonia?"
"""Answered from the offline condition pages, so the replay needs no service but the app."""
API_KEY = "space-replay-key"


@dataclass
class Dockerfile:
    """The parts of a Dockerfile the replay follows."""

    copies: list[tuple[list[str], str]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cmd: list[str] = field(default_factory=list)
    workdir: str = "/"

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        parsed = cls()
        for line in _instructions(text):
            keyword, _, rest = line.partition(" ")
            keyword, rest = keyword.upper(), rest.strip()
            if keyword == "COPY":
                words = [w for w in shlex.split(rest) if not w.startswith("--")]
                parsed.copies.append((words[:-1], words[-1]))
            elif keyword == "RUN":
                parsed.runs.append(rest)
            elif keyword == "ENV":
                parsed.env.update(w.split("=", 1) for w in shlex.split(rest))
            elif keyword == "CMD":
                parsed.cmd = json.loads(rest)
            elif keyword == "WORKDIR":
                parsed.workdir = rest
        return parsed

    def install_command(self) -> list[str]:
        """The one ``RUN`` line that calls the install script, as argv."""
        (line,) = [r for r in self.runs if INSTALL_SCRIPT in r]
        return shlex.split(line)


def _instructions(text: str) -> list[str]:
    """Instructions one a line: comments dropped, backslash continuations joined."""
    lines, current = [], ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append(current + stripped)
        current = ""
    return lines


def copy_files(image: Dockerfile, app: Path, source: Path = ROOT) -> list[str]:
    """Copy what the ``COPY`` lines name from ``source`` into ``app`` (the WORKDIR)."""
    copied = []
    for sources, dest in image.copies:
        for name in sources:
            origin = source / name
            if not origin.exists():
                raise FileNotFoundError(f"the Dockerfile copies {name}, which is missing")
            target = app / dest / origin.name if dest.endswith("/") else app / dest
            target.parent.mkdir(parents=True, exist_ok=True)
            if origin.is_dir():
                shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(origin, target)
            copied.append(name)
    return copied


def clean_env(image: Dockerfile, venv: Path, port: int | None) -> dict[str, str]:
    """This process's environment without DocGemma or Gradio settings, plus the image's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DOCGEMMA_", "GRADIO_", "VIRTUAL_ENV", "PYTHON"))
    }
    env.update({k: v for k, v in image.env.items() if k not in ("PATH", "HOME")})
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    if port is not None:
        env[PORT_VARIABLE] = str(port)
    digest = hashlib.sha256(API_KEY.encode()).hexdigest()
    env["DOCGEMMA_API_KEYS"] = json.dumps({digest: "replay"})
    return env


def install(image: Dockerfile, app: Path, venv: Path, env: dict[str, str]) -> None:
    command = image.install_command()
    target = command.index("--target") + 1
    command[target] = str(venv)
    command[0] = sys.executable  # the base image's python
    subprocess.run(command, cwd=app, env=env, check=True)


def start(image: Dockerfile, app: Path, venv: Path, env: dict[str, str], log: Path):
    """The image's ``CMD`` in the app folder, with the virtualenv's python first on PATH."""
    command = list(image.cmd)
    if command[0] in ("python", "python3"):
        command[0] = str(venv / "bin" / "python")
    with log.open("ab") as out:
        return subprocess.Popen(command, cwd=app, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_until_up(url: str, proc: subprocess.Popen, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(2)
    raise TimeoutError(f"{url} did not answer within {timeout_s:.0f} s")


def first_page(base: str) -> str:
    with urllib.request.urlopen(base + "/", timeout=30) as response:
        return response.read().decode()


def ask(base: str, question: str = QUESTION, timeout_s: float = 1200) -> dict:
    """One turn over ``POST /api/v1/chat/stream``; returns the ``done`` event (or ``error``)."""
    request = urllib.request.Request(
        base + "/api/v1/chat/stream",
        data=json.dumps({"message": question}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"},
    )
    event = ""
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        for raw in response:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event in ("done", "error"):
                return json.loads(line[5:])
    raise RuntimeError("the stream ended without a done or error event")


@dataclass
class Outcome:
    page: str
    """The first page's HTML (its Gradio config included)."""
    done: dict
    """The question's ``done`` event (or ``error``)."""


def replay(workdir: Path, port: int | None = None, source: Path = ROOT) -> Outcome:
    """Build in ``workdir`` (empty) as the image does, start the app, ask ``QUESTION``."""
    image = Dockerfile.parse((source / "Dockerfile").read_text())
    app, venv = workdir / "app", workdir / "venv"
    app.mkdir(parents=True)
    print("copied:", " ".join(copy_files(image, app, source)), flush=True)
    env = clean_env(image, venv, port)
    install(image, app, venv, env)
    log = workdir / "app.log"
    proc = start(image, app, venv, env, log)
    base = f"http://127.0.0.1:{env[PORT_VARIABLE]}"
    try:
        wait_until_up(base + "/", proc, 600)
        return Outcome(page=first_page(base), done=ask(base))
    except Exception:
        print(log.read_text()[-4000:], file=sys.stderr)
        raise
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python docgemma/space_replay.py")
    parser.add_argument("workdir", type=Path, help="an empty folder to build in")
    parser.add_argument("--port", type=int, default=None, help="default: the image's")
    args = parser.parse_args(argv)
    outcome = replay(args.workdir.absolute(), args.port)
    print(json.dumps(outcome.done, indent=2))
    return 0 if "metformin" in outcome.done.get("final_response", "").lower() else 1


if __name__ == "__main__":
    raise SystemExit(main())
