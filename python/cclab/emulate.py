"""Third-party programs through a scenario's emulated path (``cclab emulate``).

The server command is started first, in its own process group, told where to listen; the client command is started
after ``server_start`` seconds, told where the (emulated) server is. Datagrams between them cross the scenario's
links in cclab's real-time emulator. When the client exits (or the deadline passes) both process groups are
terminated (SIGTERM, then SIGKILL after 2 s) on every exit path, Ctrl-C included.

Commands receive addresses through placeholders, replaced in every argument, and the same values in environment
variables:

============== ===================== =========================================================
placeholder    environment variable  value
============== ===================== =========================================================
``{server}``   ``CCLAB_SERVER``      ``host:port`` the client sends to (the emulator's front)
``{listen}``   ``CCLAB_LISTEN``      ``host:port`` the server must listen on
``{qlog_dir}`` ``CCLAB_QLOG_DIR``    ``OUT/qlog``: programs write their qlog files there (also
                                     ``QLOGDIR``, which quiche's tools read)
``{out}``      ``CCLAB_OUT``         the run directory
============== ===================== =========================================================

``{server_host}``, ``{server_port}``, ``{listen_host}`` and ``{listen_port}`` give the parts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cclab import _core
from cclab.api import interval_ns, load
from cclab.emulate_ingest import ingest

#: Files ``emulate`` writes into the run directory.
REPORT = "emulate.json"
SERIES = "emulator.csv"
QLOG_DIR = "qlog"
#: How long a terminated program gets before SIGKILL.
KILL_GRACE_S = 2.0
#: Wall-clock limit for the client unless told otherwise.
DEFAULT_TIMEOUT_S = 60.0
#: A client whose datagrams the path drops more often than this is reported as flooding.
FLOOD_DROP_SHARE = 0.5


def _substitute(command: Sequence[str], values: dict[str, str]) -> list[str]:
    out = []
    for arg in command:
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


def _start(command: list[str], out: Path, name: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=(out / f"{name}.stdout").open("wb"),
            stderr=(out / f"{name}.stderr").open("wb"),
            env=env,
            start_new_session=True,  # its own process group: terminated as a whole, children included
        )
    except OSError as e:
        raise RuntimeError(f"cannot start the {name} command {command[0]!r}: {e}") from None


def _terminate(procs: Iterable[subprocess.Popen[bytes]]) -> None:
    """SIGTERM every process group still running, then SIGKILL after the grace period."""
    live = [p for p in procs if p.poll() is None]
    for p in live:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    end = time.monotonic() + KILL_GRACE_S
    for p in live:
        try:
            p.wait(timeout=max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for p in procs:
        # Children may outlive their leader: kill the group whatever the leader did.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        p.wait()


def _exit_on_sigterm(signum: int, _frame: Any) -> None:
    """SIGTERM (``timeout``, ``kill``) as an exception, so the programs' process groups are ended on the way out.

    By default it killed this process at once and the server, in a session of its own, ran on.
    """
    raise SystemExit(128 + signum)


def _last_json_line(path: Path) -> Any:
    """The last line of `path` that is JSON; None if there is none, or no file (a client never started)."""
    if not path.is_file():
        return None
    for line in reversed(path.read_text(errors="replace").splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def diagnose(
    emulator: dict[str, Any],
    server_code: int | None,
    client_code: int | None,
    timed_out: bool,
    client_started: bool = True,
) -> list[str]:
    """What went wrong, one sentence each (empty when the run looks healthy)."""
    problems = []
    fwd, ret = emulator["forward"], emulator["return"]
    if not client_started:
        # Everything else (no datagram sent, nothing answered) follows from this one.
        return [f"the server exited with code {server_code} before the client was started (see server.stderr)"]
    if timed_out:
        problems.append("the client did not finish before the deadline and was killed")
    if server_code not in (0, None):
        problems.append(f"the server exited with code {server_code} (see server.stderr)")
    elif server_code == 0 and client_code != 0:
        problems.append("the server exited (code 0) before the client finished")
    if client_code not in (0, None):
        problems.append(f"the client exited with code {client_code} (see client.stderr)")
    if fwd["packets_in"] == 0:
        problems.append("the client never sent a datagram to the emulated server address")
    elif fwd["packets_out"] == 0:
        # Not the server's fault: a path of 1 bit/s or hours of delay holds every datagram past the deadline.
        problems.append(
            f"the emulated path delivered none of the client's {fwd['packets_in']} datagrams to the server "
            f"({fwd['drops']} dropped, the rest held by path.forward's rate, delay or queue until the end)"
        )
    elif ret["packets_in"] == 0:
        problems.append("the server never answered (is it listening on the {listen} address?)")
    elif ret["packets_out"] == 0:
        problems.append(
            f"the emulated path delivered none of the server's {ret['packets_in']} datagrams to the client "
            f"({ret['drops']} dropped, the rest held by path.return's rate, delay or queue until the end)"
        )
    if fwd["packets_in"] >= 100 and fwd["drops"] > FLOOD_DROP_SHARE * fwd["packets_in"]:
        problems.append(f"the client floods the path: {fwd['drops']} of {fwd['packets_in']} datagrams dropped")
    return problems


def emulate(
    scenario: str | os.PathLike[str],
    server: Sequence[str],
    client: Sequence[str],
    *,
    out: str | os.PathLike[str],
    set: Iterable[str] = (),  # noqa: A002 - mirrors the CLI's --set
    seed: int | None = None,
    timeout: float | None = None,
    server_start: float = 1.0,
) -> dict[str, Any]:
    """Run `server` and `client` through `scenario`'s path; write the run directory and return its report.

    Parameters
    ----------
    scenario
        Scenario file; its first flow's forward links carry client → server datagrams, its return links the rest.
    server, client
        Commands (argument lists) with placeholders, see the module docs.
    out
        Run directory: ``emulate.json`` (the report), ``emulator.csv`` (per-direction counters and queueing delay
        per interval), ``server.stdout``/``.stderr``, ``client.stdout``/``.stderr`` and ``qlog/``.
    set, seed
        Scenario overrides and seed (the seed draws the links' losses, jitter and reordering).
    timeout
        Wall-clock limit for the client, in seconds (default 60).
    server_start
        Seconds between starting the server and the client.

    Returns
    -------
    dict
        The report written to ``emulate.json``; ``problems`` lists what went wrong (empty when healthy).
    """
    sc = load(scenario, list(set))
    run_dir = Path(out)
    qlog_dir = run_dir / QLOG_DIR
    qlog_dir.mkdir(parents=True, exist_ok=True)
    deadline_s = DEFAULT_TIMEOUT_S if timeout is None else timeout
    em = _core.start_emulation(sc._sc, seed=seed, interval_ns=interval_ns(None))
    server_host, server_port = em.server_addr.rsplit(":", 1)
    listen_host, listen_port = em.listen_addr.rsplit(":", 1)
    values = {
        "server": em.server_addr,
        "server_host": server_host,
        "server_port": server_port,
        "listen": em.listen_addr,
        "listen_host": listen_host,
        "listen_port": listen_port,
        "qlog_dir": str(qlog_dir),
        "out": str(run_dir),
    }
    env = {
        **os.environ,
        "CCLAB_SERVER": em.server_addr,
        "CCLAB_LISTEN": em.listen_addr,
        "CCLAB_QLOG_DIR": str(qlog_dir),
        "QLOGDIR": str(qlog_dir),
        "CCLAB_OUT": str(run_dir),
    }
    server_cmd, client_cmd = _substitute(server, values), _substitute(client, values)
    procs: list[subprocess.Popen[bytes]] = []
    server_code = client_code = None
    timed_out = False
    started = time.monotonic()
    # Signal handlers can be set from the main thread only; elsewhere the caller owns termination.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if main else None
    try:
        procs.append(_start(server_cmd, run_dir, "server", env))
        ready = time.monotonic() + server_start
        while time.monotonic() < ready and procs[0].poll() is None:
            time.sleep(0.02)
        if procs[0].poll() is None:
            procs.append(_start(client_cmd, run_dir, "client", env))
            end = time.monotonic() + deadline_s
            # A server may end first (one connection served); the client still gets to finish.
            while procs[1].poll() is None and time.monotonic() < end:
                time.sleep(0.02)
            client_code = procs[1].poll()
            timed_out = client_code is None
        server_code = procs[0].poll()
    finally:
        _terminate(procs)
        report_json, series_csv = em.stop()
        if main:
            signal.signal(signal.SIGTERM, previous)
    wall_s = time.monotonic() - started
    emulator = json.loads(report_json)
    (run_dir / SERIES).write_text(series_csv)
    report: dict[str, Any] = {
        "scenario": sc.name,
        "mode": "emulate",
        "server_command": server_cmd,
        "client_command": client_cmd,
        "addresses": {"server": values["server"], "listen": values["listen"]},
        "server_exit": server_code,
        "client_exit": client_code,
        "wall_s": wall_s,
        "emulator": emulator,
        "problems": diagnose(emulator, server_code, client_code, timed_out, client_started=len(procs) == 2),
        # Hook for the qlog reader (python/cclab/traces/): these files are what it ingests into the time series.
        "qlog_files": sorted(str(p.relative_to(run_dir)) for p in qlog_dir.rglob("*") if p.is_file()),
        "client_report": _last_json_line(run_dir / "client.stdout"),
    }
    (run_dir / REPORT).write_text(json.dumps(report, indent=2) + "\n")
    interval = tomllib.loads(sc.resolved_toml).get("output", {}).get("timeseries_interval", "10ms")
    ingest(run_dir, report, _core.parse_duration_ns(interval) / 1e9)
    return report
