# SPDX-License-Identifier: BSD-3-Clause
"""The ledger on a real PostgreSQL server: two replicas share one budget.

The server is started by the test from the machine's PostgreSQL binaries
(``initdb`` / ``pg_ctl`` in a temporary directory, on 127.0.0.1, run as the
unprivileged user ``nobody`` when the tests run as root, because ``initdb``
refuses root). Skipped, with the reason, when the binaries or the psycopg
driver are absent: ``apt-get install -y postgresql`` and
``pip install 'dpsvm[postgres]'`` provide them.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import threading

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import (
    KEY,
    OTHER_KEY,
    StatefulDouble,
    auth,
    free_port,
    infer_body,
    make_keys,
    make_ledger,
    make_served,
)
from fastapi.testclient import TestClient

from dpsvm.serving import LedgerError, create_app

pytest.importorskip(
    "psycopg", reason="the psycopg driver is absent: pip install 'dpsvm[postgres]'"
)
pytestmark = pytest.mark.slow
URL = "/v2/models/dpsvm"


def _pg_bin() -> str | None:
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")):
        return os.path.dirname(candidate)
    return None


@pytest.fixture(scope="module")
def pg_url():
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip(
            "PostgreSQL binaries (initdb, pg_ctl) not found; install them with "
            "`apt-get install -y postgresql` to run the PostgreSQL ledger tests"
        )
    prefix: list[str] = []
    root = tempfile.mkdtemp(prefix="dpsvm-pg-", dir="/tmp")
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            shutil.rmtree(root)
            pytest.skip("running as root without runuser: cannot run initdb")
        import pwd

        nobody = pwd.getpwnam("nobody")
        os.chown(root, nobody.pw_uid, nobody.pw_gid)
        prefix = [runuser, "-u", "nobody", "--"]
    data = os.path.join(root, "data")
    port = free_port()

    def run(*args: str) -> None:
        subprocess.run(
            [*prefix, *args],
            check=True,
            capture_output=True,
            timeout=120,
            cwd=root,
        )

    try:
        run(
            os.path.join(bindir, "initdb"),
            "-D",
            data,
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        run(
            os.path.join(bindir, "pg_ctl"),
            "-D",
            data,
            "-l",
            os.path.join(root, "log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {port} -h 127.0.0.1 -k {root} -F",
            "start",
        )
    except (subprocess.SubprocessError, OSError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"could not start a PostgreSQL server: {exc}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [
                *prefix,
                os.path.join(bindir, "pg_ctl"),
                "-D",
                data,
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
            timeout=60,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)


def _drop(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for t in ("answers", "keys", "state", "meta", "release"):
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS dpsvm_ledger_{t}")
    engine.dispose()


def post(client: TestClient, rows: list, rid: str | None = None, key: str = KEY):
    return client.post(f"{URL}/infer", json=infer_body(rows, rid), headers=auth(key))


def _replica(url: str, total: float = 1.0) -> tuple[TestClient, object]:
    served = make_served(StatefulDouble(total=total, eps_q=0.01))
    app = create_app(served, make_ledger(url, served), make_keys())
    return TestClient(app), served


def test_two_replicas_share_state_and_budget(pg_url):
    _drop(pg_url)
    c1, s1 = _replica(pg_url)
    c2, s2 = _replica(pg_url)
    with c1, c2:
        for i in range(6):
            client = (c1, c2)[i % 2]
            r = client.post(
                f"{URL}/infer",
                json=infer_body([[i - 2, 0, 1]], f"r{i}"),
                headers=auth(),
            )
            assert r.status_code == 200, r.text
        # Each replica loaded the other's updates before answering.
        assert s1.predictor.history[:5] == s2.predictor.history[:5]
        assert len(s2.predictor.history) == 6
        b = c1.get(f"{URL}/budget", headers=auth()).json()
        assert b["answers"] == 6 and abs(b["epsilon_spent"] - 0.06) < 1e-12
        # A retry at the other replica returns the stored answer, spends nothing.
        first = c1.post(
            f"{URL}/infer", json=infer_body([[1, 1, 1]], "x"), headers=auth()
        )
        again = c2.post(
            f"{URL}/infer", json=infer_body([[1, 1, 1]], "x"), headers=auth()
        )
        assert again.json() == first.json()
        assert c2.get(f"{URL}/budget", headers=auth()).json()["answers"] == 7


def test_parallel_clients_on_two_replicas_never_overspend(pg_url):
    _drop(pg_url)
    c1, _ = _replica(pg_url, total=0.3)  # 30 answers
    c2, _ = _replica(pg_url, total=0.3)
    ok = [0]
    lock = threading.Lock()

    def loop(client: TestClient, key: str) -> None:
        for _ in range(10):
            r = client.post(
                f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth(key)
            )
            assert r.status_code in (200, 429), r.text
            if r.status_code == 200:
                with lock:
                    ok[0] += 1

    with c1, c2:
        threads = [
            threading.Thread(
                target=loop, args=((c1, c2)[i % 2], (KEY, OTHER_KEY)[i % 2])
            )
            for i in (0, 1) * 4
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
        b = c1.get(f"{URL}/budget", headers=auth()).json()
    assert ok[0] == 30 == b["answers"]
    assert b["epsilon_spent"] <= 0.3 + 1e-9


def test_restart_with_another_budget_is_refused(pg_url):
    _drop(pg_url)
    c1, _ = _replica(pg_url, total=1.0)
    with c1:  # start and stop (closes its connections)
        pass
    served = make_served(StatefulDouble(total=2.0))
    with pytest.raises(LedgerError, match="total budget is fixed"):
        create_app(served, make_ledger(pg_url, served), make_keys())


def test_two_replicas_racing_to_release_commit_one_charge(pg_url):
    """--mechanism model on PostgreSQL: both train, one release is committed."""
    import numpy as np

    from dpsvm.models import DPLinearSVC
    from dpsvm.serving import Ledger, release_once

    _drop(pg_url)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 3)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    barrier = threading.Barrier(2, timeout=60)
    results: list = [None, None]

    def replica(i: int) -> None:
        ledger = Ledger(
            pg_url,
            fingerprint="d" * 64,
            model_name="dpsvm",
            mechanism="model",
            epsilon_total=0.5,
            delta_total=0.0,
        )

        def train():
            model = DPLinearSVC(epsilon=0.5, classes=[-1, 1]).fit(X, y)
            barrier.wait()  # both trained before either commits
            return model

        model, trained = release_once(ledger, train, {"n_answers": 0})
        state = ledger.snapshot()
        results[i] = (model, trained, state.version, state.epsilon_spent)
        ledger.dispose()

    threads = [threading.Thread(target=replica, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(r[1] for r in results) == [False, True]
    assert [r[2:] for r in results] == [(1, 0.5), (1, 0.5)]  # one charge
    np.testing.assert_array_equal(results[0][0].coef_, results[1][0].coef_)
