# SPDX-License-Identifier: BSD-3-Clause
"""No fleet freeze, honest readiness, on a real PostgreSQL ledger.

* One of two replicas is SIGSTOPped in the middle of a charge (holding the
  budget row's lock, idle in its transaction): the other keeps answering within
  the ledger timeout, because the server ends the hung session
  (``idle_in_transaction_session_timeout``) and its lock with it.
* Readiness answers 503 while PostgreSQL is stopped and 200 once it is back.

The server is started from the machine's binaries as in
``test_service_postgres.py`` (skipped, saying why, when they are absent).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")
pytest.importorskip("prometheus_client")

from _service_helpers import (
    StatefulDouble,
    auth,
    free_port,
    infer_body,
    make_keys,
    make_served,
)
from fastapi.testclient import TestClient
from test_service_postgres import _drop, _pg_bin

from dpsvm.serving import Ledger, create_app

pytest.importorskip(
    "psycopg", reason="the psycopg driver is absent: pip install 'dpsvm[postgres]'"
)
pytestmark = pytest.mark.slow
URL = "/v2/models/dpsvm"
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")


class _Postgres:
    """A throwaway PostgreSQL server that the test can stop and start."""

    def __init__(self) -> None:
        bindir = _pg_bin()
        if bindir is None:
            pytest.skip(
                "PostgreSQL binaries (initdb, pg_ctl) not found; install them with "
                "`apt-get install -y postgresql` to run the PostgreSQL ledger tests"
            )
        self.bindir = bindir
        self.prefix: list[str] = []
        self.root = tempfile.mkdtemp(prefix="dpsvm-pgops-", dir="/tmp")
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None:
                shutil.rmtree(self.root)
                pytest.skip("running as root without runuser: cannot run initdb")
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
            self.prefix = [runuser, "-u", "nobody", "--"]
        self.data = os.path.join(self.root, "data")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        try:
            self._run(
                "initdb", "-D", self.data, "-U", "postgres", "--auth=trust",
                "-E", "UTF8", "--no-sync",
            )  # fmt: skip
            self.start()
        except (subprocess.SubprocessError, OSError) as exc:
            shutil.rmtree(self.root, ignore_errors=True)
            pytest.skip(f"could not start a PostgreSQL server: {exc}")

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.prefix, os.path.join(self.bindir, tool), *args],
            check=True,
            capture_output=True,
            timeout=60,
            cwd=self.root,
        )

    def start(self) -> None:
        self._run(
            "pg_ctl", "-D", self.data, "-l", os.path.join(self.root, "log"),
            "-w", "-t", "60", "-o", f"-p {self.port} -h 127.0.0.1 -k {self.root} -F",
            "start",
        )  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def close(self) -> None:
        try:
            self.stop()
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def pg():
    server = _Postgres()
    try:
        yield server
    finally:
        server.close()


def _ledger(url: str, served, timeout: float) -> Ledger:
    return Ledger(
        url,
        fingerprint=served.fingerprint,
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=1.0,
        delta_total=1e-6,
        timeout=timeout,
    )


#: The hung replica: a real app whose mechanism announces that it is inside
#: the charge's transaction (the budget row locked), so that the test can
#: SIGSTOP it exactly there.
_HUNG_REPLICA = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [{here!r}, {src!r}]
    from _service_helpers import (
        StatefulDouble, auth, infer_body, make_keys, make_served)
    from fastapi.testclient import TestClient
    from dpsvm.serving import Ledger, create_app

    class Announcing(StatefulDouble):
        def answer(self, X):
            print("answering", flush=True)
            return super().answer(X)

    served = make_served(Announcing())
    ledger = Ledger({url!r}, fingerprint=served.fingerprint, model_name=served.name,
                    mechanism=served.mechanism, epsilon_total=1.0, delta_total=1e-6,
                    timeout={timeout!r})
    with TestClient(create_app(served, ledger, make_keys())) as c:
        r = c.post("/v2/models/dpsvm/infer", json=infer_body([[1, 2, 3]]),
                   headers=auth())
        print("status", r.status_code, flush=True)
    """
)


def test_a_sigstopped_replica_does_not_freeze_the_other(pg):
    """SIGSTOP one replica inside its charge; the other answers within its
    timeout (not after the hung one resumes), and the hung one's uncommitted
    group is discarded unsent (as if it had crashed before the commit)."""
    _drop(pg.url)
    timeout = 1.0
    served = make_served(StatefulDouble())
    healthy = create_app(served, _ledger(pg.url, served, 3 * timeout), make_keys())
    with TestClient(healthy) as c:
        assert (
            c.post(
                f"{URL}/infer", json=infer_body([[1, 1, 1]]), headers=auth()
            ).status_code
            == 200
        )
        code = _HUNG_REPLICA.format(here=HERE, src=SRC, url=pg.url, timeout=timeout)
        hung = subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert hung.stdout is not None
            line = hung.stdout.readline()  # blocks until it is inside the charge
            assert line.strip() == "answering", line
            os.kill(hung.pid, signal.SIGSTOP)
            latencies: list[float] = []
            statuses: list[int] = []

            def healthy_client() -> None:
                for i in range(4):
                    t0 = time.monotonic()
                    r = c.post(
                        f"{URL}/infer", json=infer_body([[i, 1, 1]]), headers=auth()
                    )
                    latencies.append(time.monotonic() - t0)
                    statuses.append(r.status_code)

            # Bounded: without the timeouts this thread would wait for SIGCONT.
            worker = threading.Thread(target=healthy_client)
            worker.start()
            worker.join(15 * timeout)
            assert not worker.is_alive(), (
                "the healthy replica froze behind the hung one"
            )
            assert statuses == [200] * 4, statuses
            # The first waited for the hung session to be ended (about the
            # hung replica's timeout), the next ones did not wait at all.
            assert latencies[0] < 3 * timeout, latencies
            assert max(latencies[1:]) < timeout, latencies
            os.kill(hung.pid, signal.SIGCONT)
            out, _ = hung.communicate(timeout=60)
        finally:
            if hung.poll() is None:
                os.kill(hung.pid, signal.SIGCONT)
                hung.kill()
                hung.wait()
        # Its transaction was ended by the server: 503, nothing committed.
        assert "status 503" in out, out
        b = c.get(f"{URL}/budget", headers=auth()).json()
    assert b["answers"] == 5 and b["epsilon_spent"] == pytest.approx(0.05)


def test_readiness_follows_the_postgresql_server(pg):
    _drop(pg.url)
    served = make_served(StatefulDouble())
    app = create_app(served, _ledger(pg.url, served, 2.0), make_keys())
    with TestClient(app) as c:
        assert c.get("/v2/health/ready").status_code == 200
        pg.stop()
        try:
            r = c.get("/v2/health/ready")
            assert r.status_code == 503 and "unreachable" in r.json()["error"]
            assert c.get(f"{URL}/ready").status_code == 503
            assert c.get("/v2/health/live").status_code == 200
            r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
            assert r.status_code == 503, r.text
        finally:
            pg.start()
        deadline = time.monotonic() + 10
        while c.get("/v2/health/ready").status_code != 200:
            assert time.monotonic() < deadline, "not ready after PostgreSQL returned"
            time.sleep(0.1)
        r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
        assert r.status_code == 200
        assert c.get(f"{URL}/budget", headers=auth()).json()["answers"] == 1
