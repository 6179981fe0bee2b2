# SPDX-License-Identifier: BSD-3-Clause
"""The durable privacy ledger of the prediction service (SQLAlchemy).

One ledger guards one served model. It holds, in five tables:

``dpsvm_ledger_meta``
    What the ledger is bound to: the model/data fingerprint, the model name,
    the mechanism and the total (ε, δ). A server started against a ledger with
    another fingerprint or another total budget is refused.
``dpsvm_ledger_state``
    One row: the budget spent so far, the number of answered query rows, the
    mechanism's state (``state_dict`` as JSON) and a version number that
    grows with every charge. The state is **server-secret**: it holds
    mechanism randomness a client must never see (the sparse vector's
    threshold noise ρ, ``"threshold_noise"``), which would void the guarantee.
    The ledger must not be readable by clients; a new SQLite file is created
    with mode 0600 (owner only), and a database server's access must be
    restricted likewise.
``dpsvm_ledger_answers``
    The answers sent within the idempotency window, under (key id, request
    id): a retried request id gets the stored answer back and spends nothing.
    Older records are pruned (:meth:`Ledger.prune`): the spend totals live in
    ``dpsvm_ledger_state`` and stay exact forever, so the ledger's size is
    bounded by the answers of one window, not by all answers ever sent.
``dpsvm_ledger_keys``
    The answered rows of each API key (for per-key limits).
``dpsvm_ledger_release``
    At most one row (primary key ``id = 1``): the model that a
    release-once mechanism (``dpsvm serve --mechanism model``) trained and
    published, in the library's model-file format (:mod:`dpsvm.io`). It is
    inserted in the same transaction that charges its (ε, δ)
    (:meth:`Ledger.commit_release`): either both are committed or neither, and
    a second replica that trained concurrently finds the row taken, commits
    nothing and serves the stored model instead of its own.

Each charge is one transaction that holds the ledger's write lock from the
moment the state is read until the answer is committed: on SQLite
``BEGIN IMMEDIATE`` (WAL journal, ``synchronous=FULL``), on other databases
``SELECT ... FOR UPDATE`` on the state row. The service sends an answer only
after its transaction has committed, so a crash at any moment can lose an
answer the client never received but can never give budget back.

No replica can freeze the others: on PostgreSQL every connection sets
``lock_timeout``, ``statement_timeout`` and
``idle_in_transaction_session_timeout`` (``timeout`` seconds), so the server
ends the session of a replica that hangs inside a charge (SIGSTOP, a stalled
VM) and releases its lock; its uncommitted group is rolled back, exactly as if
it had crashed before the commit (nothing of it was sent). On SQLite a waiting
writer gives up after ``busy_timeout``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

__all__ = ["Ledger", "LedgerError", "LedgerState", "StoredAnswer"]

FORMAT_VERSION = 1
#: Default seconds a retried request id is remembered (``--idempotency-window``).
DEFAULT_IDEMPOTENCY_WINDOW = 24 * 3600.0
#: Default seconds of the ledger's lock, statement and idle-in-transaction
#: timeouts (``--ledger-timeout``).
DEFAULT_LEDGER_TIMEOUT = 10.0

#: What binds a ledger to one model and one total budget: each is a column of
#: ``dpsvm_ledger_meta`` and the :class:`Ledger` attribute of the same name,
#: written when the ledger is created and checked on every later open.
_BINDING_COLUMNS: dict[str, Any] = {
    "fingerprint": sa.String(64),
    "model_name": sa.String(200),
    "mechanism": sa.String(100),
    "epsilon_total": sa.Float,
    "delta_total": sa.Float,
}


def _required_columns(types: dict[str, Any]) -> list[sa.Column[Any]]:
    """NOT NULL columns of the given types, in the order given."""
    return [sa.Column(name, type_, nullable=False) for name, type_ in types.items()]


_metadata = sa.MetaData()
_meta = sa.Table(
    "dpsvm_ledger_meta",
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("format_version", sa.Integer, nullable=False),
    *_required_columns(_BINDING_COLUMNS),
    sa.Column("created_unix", sa.Float, nullable=False),
)
_state = sa.Table(
    "dpsvm_ledger_state",
    _metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("version", sa.BigInteger, nullable=False),
    sa.Column("epsilon_spent", sa.Float, nullable=False),
    sa.Column("delta_spent", sa.Float, nullable=False),
    sa.Column("answers", sa.BigInteger, nullable=False),
    sa.Column("state_json", sa.Text, nullable=False),
)
_answers = sa.Table(
    "dpsvm_ledger_answers",
    _metadata,
    sa.Column("key_id", sa.String(16), primary_key=True),
    sa.Column("request_id", sa.String(256), primary_key=True),
    sa.Column("request_hash", sa.String(64), nullable=False),
    sa.Column("response_json", sa.Text, nullable=False),
    sa.Column("rows", sa.Integer, nullable=False),
    sa.Column("epsilon", sa.Float, nullable=False),
    sa.Column("delta", sa.Float, nullable=False),
    sa.Column("created_unix", sa.Float, nullable=False),
)
#: Pruning deletes by age: an index keeps it from scanning the table.
_answers_by_age = sa.Index("ix_dpsvm_ledger_answers_created", _answers.c.created_unix)
_keys = sa.Table(
    "dpsvm_ledger_keys",
    _metadata,
    sa.Column("key_id", sa.String(16), primary_key=True),
    sa.Column("answers", sa.BigInteger, nullable=False),
)
_release = sa.Table(
    "dpsvm_ledger_release",
    _metadata,
    # One released model per ledger: the primary key makes a second insert fail.
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("model_json", sa.Text, nullable=False),
    sa.Column("epsilon", sa.Float, nullable=False),
    sa.Column("delta", sa.Float, nullable=False),
    sa.Column("created_unix", sa.Float, nullable=False),
)

# The statements of a charge, built once: a statement object caches its
# compiled form, so executing it again with new parameters skips rebuilding it.
_STATE_ROW = sa.select(_state).where(_state.c.id == 1)
_STATE_ROW_LOCKED = _STATE_ROW.with_for_update()
_STATE_WRITE = _state.update().where(_state.c.id == 1)
_KEY_ROW = sa.select(_keys.c.answers).where(_keys.c.key_id == sa.bindparam("b_key"))
_KEY_ADD = (
    _keys.update()
    .where(_keys.c.key_id == sa.bindparam("b_key"))
    .values(answers=_keys.c.answers + sa.bindparam("b_rows", type_=sa.BigInteger))
)


class LedgerError(ValueError):
    """A ledger that does not belong to this model or budget, or is unusable."""


@dataclass(frozen=True)
class LedgerState:
    """The budget row of a ledger.

    Attributes
    ----------
    version : int
        Grows by one with every committed charge.
    epsilon_spent, delta_spent : float
        The privacy budget spent by all answers so far.
    answers : int
        The number of query rows answered.
    state : dict
        The mechanism's state (its ``state_dict``); server-secret (it may
        hold the threshold noise ρ), never sent to a client.
    """

    version: int
    epsilon_spent: float
    delta_spent: float
    answers: int
    state: dict[str, Any]


@dataclass(frozen=True)
class StoredAnswer:
    """An answer already sent for a (key, request id)."""

    request_hash: str
    response: dict[str, Any]


def _state_values(state: LedgerState) -> dict[str, Any]:
    """The columns of the budget row that hold ``state`` (inverse of _read_state)."""
    return {
        "version": state.version,
        "epsilon_spent": state.epsilon_spent,
        "delta_spent": state.delta_spent,
        "answers": state.answers,
        "state_json": json.dumps(state.state, allow_nan=False, separators=(",", ":")),
    }


class _LedgerReads:
    """The reads a ledger and one locked charge share, each on its connection."""

    #: Lock the budget row with ``SELECT ... FOR UPDATE`` when reading it.
    _lock = False

    def _connection(self) -> contextlib.AbstractContextManager[Connection]:
        raise NotImplementedError

    def _budget_row(self) -> LedgerState:
        with self._connection() as conn:
            return _read_state(conn, lock=self._lock)

    def key_answers(self, key_id: str) -> int:
        """Rows answered for one key (a ledger reads without a lock).

        Parameters
        ----------
        key_id : str
            The key's id.

        Returns
        -------
        int
            The count.
        """
        with self._connection() as conn:
            return _key_answers(conn, key_id)


def _sqlite_url(spec: str) -> str:
    if "://" in spec:
        return spec
    return "sqlite:///" + spec


def _create_owner_only(path: str) -> None:
    """Create an absent SQLite file with mode 0600 (its WAL files follow).

    The ledger holds server-secret mechanism state (the threshold noise ρ):
    no other local user may read it. An empty file is a valid empty SQLite
    database; an existing file is left as it is.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return  # exists, or cannot be created: SQLite reports it on connect
    os.close(fd)


class Ledger(_LedgerReads):
    """A durable, transactional privacy ledger for one served model.

    Parameters
    ----------
    spec : str
        A file path (an SQLite database, created when absent) or any SQLAlchemy
        URL (``postgresql+psycopg://user@host/db`` for several replicas).
    fingerprint : str
        Hex digest identifying the model and its training data and settings.
    model_name : str
        The served model's name.
    mechanism : str
        The answering mechanism.
    epsilon_total, delta_total : float
        The total budget of all answers.
    sqlite_synchronous : {"FULL", "NORMAL"}, default="FULL"
        SQLite only. ``"FULL"``: each charge is fsynced before the answer is
        sent (survives a power loss). ``"NORMAL"`` (WAL): survives a crash or
        SIGKILL of the server, but an OS crash or power loss may lose the last
        charges, i.e. give back budget of answers already sent; faster.
    """

    def __init__(
        self,
        spec: str,
        *,
        fingerprint: str,
        model_name: str,
        mechanism: str,
        epsilon_total: float,
        delta_total: float,
        sqlite_synchronous: str = "FULL",
        timeout: float = DEFAULT_LEDGER_TIMEOUT,
        idempotency_window: float | None = DEFAULT_IDEMPOTENCY_WINDOW,
    ) -> None:
        if sqlite_synchronous not in ("FULL", "NORMAL"):
            raise ValueError("sqlite_synchronous must be 'FULL' or 'NORMAL'")
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError("timeout must be a positive number of seconds")
        if idempotency_window is not None and not (
            math.isfinite(idempotency_window) and idempotency_window > 0
        ):
            raise ValueError("idempotency_window must be positive seconds or None")
        self._synchronous = sqlite_synchronous
        self.timeout = float(timeout)
        self.idempotency_window = (
            None if idempotency_window is None else float(idempotency_window)
        )
        #: Called with the seconds each commit of a charge took (metrics).
        self.commit_observer: Callable[[float], None] | None = None
        self._last_prune = 0.0
        self.url = _sqlite_url(spec)
        self.fingerprint = fingerprint
        self.model_name = model_name
        self.mechanism = mechanism
        self.epsilon_total = float(epsilon_total)
        self.delta_total = float(delta_total)
        self.engine = self._create_engine(self.url, sqlite_synchronous, self.timeout)
        self._is_sqlite = self.engine.dialect.name == "sqlite"

    @staticmethod
    def _create_engine(url: str, synchronous: str, timeout: float) -> Engine:
        parsed = sa.engine.make_url(url)
        ms = max(1, round(timeout * 1000))
        if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() in (
            "psycopg",
            "psycopg2",
        ):
            # Set by the server for the session's life (connect options, not
            # SET statements that a rollback would undo): a waiter gives up, a
            # runaway statement is cancelled, and a session idle inside a
            # transaction (its replica hung) is ended, releasing its locks.
            options = " ".join(
                f"-c {name}={ms}"
                for name in (
                    "lock_timeout",
                    "statement_timeout",
                    "idle_in_transaction_session_timeout",
                )
            )
            connect_args = {
                "options": options,
                "connect_timeout": max(2, math.ceil(timeout)),
            }
            return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)
        if parsed.get_backend_name() != "sqlite":
            return sa.create_engine(url, pool_pre_ping=True)
        memory = parsed.database in (None, "", ":memory:")
        if not memory and not str(parsed.database).startswith("file:"):
            _create_owner_only(str(parsed.database))
        kwargs: dict[str, Any] = {
            "connect_args": {"check_same_thread": False, "timeout": timeout}
        }
        if memory:
            kwargs["poolclass"] = sa.pool.StaticPool
        engine = sa.create_engine(url, **kwargs)

        @sa.event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            # Let SQLAlchemy's "begin" hook issue BEGIN IMMEDIATE itself (the
            # pysqlite driver would otherwise open a deferred transaction).
            dbapi_connection.isolation_level = None
            cur = dbapi_connection.cursor()
            if not memory:
                cur.execute("PRAGMA journal_mode=WAL")
            # FULL: a commit is on disk (WAL fsync) before the answer is sent,
            # so not even an OS crash or power loss can return budget.
            cur.execute(f"PRAGMA synchronous={synchronous}")
            # A writer waits this long for another's lock, then gives up (503).
            cur.execute(f"PRAGMA busy_timeout={ms}")
            cur.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            if conn.get_execution_options().get("dpsvm_read_only", False):
                # A WAL reader: sees the last commit, never blocks a writer.
                conn.exec_driver_sql("BEGIN")
            else:
                # Take the write lock at the start: no other writer can read
                # the budget between our read and our commit.
                conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine

    # ------------------------------------------------------------- set-up
    def open(self, initial_state: dict[str, Any]) -> LedgerState:
        """Create or check the ledger and return its budget row.

        Parameters
        ----------
        initial_state : dict
            The mechanism's state before any answer (stored when the ledger is
            new).

        Returns
        -------
        LedgerState
            The current row (version 0 for a new ledger).

        Raises
        ------
        LedgerError
            If the ledger was made for another model/data fingerprint, name,
            mechanism or total budget, or by another format version.
        """
        try:
            return self._open(initial_state)
        except BaseException:
            self.engine.dispose()  # leave no connection open behind a refusal
            raise

    def _open(self, initial_state: dict[str, Any]) -> LedgerState:
        try:
            _metadata.create_all(self.engine, checkfirst=True)
        except sa.exc.SQLAlchemyError:
            # Two replicas creating the tables at once: the loser finds them.
            _metadata.create_all(self.engine, checkfirst=True)
        with contextlib.suppress(sa.exc.SQLAlchemyError):  # a ledger made before
            _answers_by_age.create(self.engine, checkfirst=True)  # it had one
        try:
            self._create_or_check(initial_state)
        except sa.exc.IntegrityError:
            # Two replicas creating the ledger at once (PostgreSQL reads
            # without the write lock): the loser finds the winner's rows.
            self._create_or_check(initial_state)
        return self.snapshot()

    def _create_or_check(self, initial_state: dict[str, Any]) -> None:
        with self.engine.begin() as conn:
            row = conn.execute(sa.select(_meta).where(_meta.c.id == 1)).first()
            if row is None:
                conn.execute(
                    _meta.insert().values(
                        id=1,
                        format_version=FORMAT_VERSION,
                        created_unix=time.time(),
                        **{name: getattr(self, name) for name in _BINDING_COLUMNS},
                    )
                )
                empty = LedgerState(0, 0.0, 0.0, 0, initial_state)
                conn.execute(_state.insert().values(id=1, **_state_values(empty)))
            else:
                self._check_binding(row)

    def _check_binding(self, row: Any) -> None:
        if row.format_version != FORMAT_VERSION:
            raise LedgerError(
                f"the ledger has format version {row.format_version}; this dpsvm "
                f"reads version {FORMAT_VERSION}"
            )
        if row.fingerprint != self.fingerprint:
            raise LedgerError(
                "the ledger belongs to another model or training data (fingerprint "
                "differs): a ledger guards exactly one model; start with a new "
                "--ledger for a new model"
            )
        for what, stored, given in (
            ("model name", row.model_name, self.model_name),
            ("mechanism", row.mechanism, self.mechanism),
        ):
            if stored != given:
                raise LedgerError(
                    f"the ledger was started with {what} {stored!r}, not {given!r}"
                )
        if not (
            math.isclose(row.epsilon_total, self.epsilon_total, rel_tol=1e-12)
            and math.isclose(row.delta_total, self.delta_total, rel_tol=1e-12)
        ):
            raise LedgerError(
                "the ledger was started with total budget epsilon = "
                f"{row.epsilon_total:g}, delta = {row.delta_total:g}; a total budget "
                "is fixed for the life of a ledger and a restart cannot change it "
                f"(given epsilon = {self.epsilon_total:g}, delta = "
                f"{self.delta_total:g})"
            )

    def snapshot(self) -> LedgerState:
        """Read the budget row without locking.

        Returns
        -------
        LedgerState
            The last committed row.
        """
        return self._budget_row()

    def released_model(self) -> str | None:
        """The released model's JSON text, or ``None`` before the release.

        Returns
        -------
        str or None
            The model file text committed by :meth:`commit_release`.
        """
        with self._connection() as conn:
            value = conn.execute(
                sa.select(_release.c.model_json).where(_release.c.id == 1)
            ).scalar()
        return None if value is None else str(value)

    def commit_release(
        self,
        model_json: str,
        *,
        epsilon: float,
        delta: float,
        state: dict[str, Any],
    ) -> bool:
        """Charge a one-time release and store its model, in ONE transaction.

        Parameters
        ----------
        model_json : str
            The released model in the model-file format of :mod:`dpsvm.io`.
        epsilon, delta : float
            The release's privacy cost (charged once, at version 1).
        state : dict
            The serving state stored with the charge.

        Returns
        -------
        bool
            ``True`` if this call committed the release; ``False`` if a
            release was already committed (by another replica, or before a
            restart): nothing is charged then, and the caller must discard its
            model unserved and serve :meth:`released_model` instead.

        Raises
        ------
        LedgerError
            If the release would exceed the ledger's total budget, or the
            ledger already holds answers of another mechanism.
        """
        if epsilon > self.epsilon_total * (1 + 1e-12) or delta > self.delta_total * (
            1 + 1e-12
        ):
            raise LedgerError(
                f"the release costs epsilon = {epsilon:g}, delta = {delta:g}, more "
                f"than the ledger's total epsilon = {self.epsilon_total:g}, delta "
                f"= {self.delta_total:g}"
            )
        try:
            with self.transaction() as txn:
                conn = txn._conn
                # Lock the budget row first (BEGIN IMMEDIATE holds SQLite's
                # write lock already; elsewhere SELECT ... FOR UPDATE waits for
                # a concurrent release to commit), then look for a release.
                previous = txn.state()
                taken = conn.execute(
                    sa.select(_release.c.id).where(_release.c.id == 1)
                ).first()
                if taken is not None:
                    return False
                if previous.version != 0:
                    raise LedgerError(
                        "the ledger already holds charges but no released model; "
                        "start with a new --ledger"
                    )
                # Insert-if-absent: the primary key refuses a concurrent second
                # release (the loser's transaction rolls back, charge included).
                conn.execute(
                    _release.insert().values(
                        id=1,
                        model_json=model_json,
                        epsilon=float(epsilon),
                        delta=float(delta),
                        created_unix=time.time(),
                    )
                )
                new = LedgerState(1, float(epsilon), float(delta), 0, state)
                conn.execute(
                    _state.update().where(_state.c.id == 1).values(**_state_values(new))
                )
        except sa.exc.IntegrityError:
            return False  # another replica committed first: nothing charged here
        return True

    @contextlib.contextmanager
    def transaction(self) -> Iterator[LedgerTransaction]:
        """Hold the ledger's write lock for one charge; commit on success.

        Yields
        ------
        LedgerTransaction
            Reads and writes inside the locked transaction.
        """
        with self.engine.connect() as conn:
            txn = conn.begin()
            try:
                charge = LedgerTransaction(
                    conn,
                    lock=not self._is_sqlite,
                    expired_before=self._expired_before(),
                )
                yield charge
                charge.flush()
            except BaseException:
                txn.rollback()
                raise
            started = time.perf_counter()
            txn.commit()
            if self.commit_observer is not None:
                self.commit_observer(time.perf_counter() - started)
        self._maybe_prune()

    def _expired_before(self) -> float | None:
        """Records created before this unix time are outside the window."""
        if self.idempotency_window is None:
            return None
        return time.time() - self.idempotency_window

    def _maybe_prune(self) -> None:
        """Prune now and then (every tenth of the window, at most each minute)."""
        if self.idempotency_window is None:
            return
        every = min(60.0, self.idempotency_window / 10)
        now = time.monotonic()
        if now - self._last_prune >= every:
            self._last_prune = now
            # Best effort: a failed prune leaves rows for the next one.
            with contextlib.suppress(sa.exc.SQLAlchemyError):
                self.prune()

    def prune(self, now: float | None = None) -> int:
        """Delete the idempotency records older than the window.

        Parameters
        ----------
        now : float, optional
            The unix time to prune at (default: the clock).

        Returns
        -------
        int
            The number of records deleted. The spend totals, the answered
            rows and the per-key counts are not records: they stay exact.

        Notes
        -----
        The window is public (``--idempotency-window``): a request id retried
        after it is a new request, answered and charged anew.
        """
        if self.idempotency_window is None:
            return 0
        cutoff = (time.time() if now is None else now) - self.idempotency_window
        with self.engine.begin() as conn:
            result = conn.execute(
                _answers.delete().where(_answers.c.created_unix < cutoff)
            )
        return int(result.rowcount or 0)

    def answer_records(self) -> int:
        """The number of idempotency records held (within the window).

        Returns
        -------
        int
            Rows of ``dpsvm_ledger_answers``.
        """
        with self._connection() as conn:
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(_answers)).scalar()
                or 0
            )

    def _connection(self) -> Connection:
        # A read-only connection: on SQLite a WAL reader that never blocks a writer.
        return self.engine.connect().execution_options(dpsvm_read_only=True)

    def dispose(self) -> None:
        """Close the connection pool."""
        self.engine.dispose()


def _read_state(conn: Connection, *, lock: bool) -> LedgerState:
    row = conn.execute(_STATE_ROW_LOCKED if lock else _STATE_ROW).first()
    if row is None:
        raise LedgerError("the ledger has no budget row (not opened?)")
    return LedgerState(
        int(row.version),
        float(row.epsilon_spent),
        float(row.delta_spent),
        int(row.answers),
        json.loads(row.state_json),
    )


def _key_answers(conn: Connection, key_id: str) -> int:
    value = conn.execute(_KEY_ROW, {"b_key": key_id}).scalar()
    return 0 if value is None else int(value)


class LedgerTransaction(_LedgerReads):
    """Reads and writes of one locked charge (see :meth:`Ledger.transaction`).

    Parameters
    ----------
    conn : sqlalchemy.engine.Connection
        The connection inside its transaction.
    lock : bool
        Lock the state row with ``SELECT ... FOR UPDATE``.
    expired_before : float or None, default=None
        Idempotency records created before this unix time are expired.
    """

    def __init__(
        self, conn: Connection, *, lock: bool, expired_before: float | None = None
    ) -> None:
        self._conn = conn
        self._lock = lock
        self._expired_before = expired_before
        # Writes of the charges recorded so far, flushed once before the commit
        # (group commit: one state row, one multi-row insert, one count per key).
        self._last: LedgerState | None = None
        self._answer_rows: list[dict[str, Any]] = []
        self._recorded: dict[tuple[str, str], StoredAnswer] = {}
        self._key_rows: dict[str, int] = {}

    def key_answers(self, key_id: str) -> int:
        """Query rows answered to one API key, this transaction's included.

        Parameters
        ----------
        key_id : str
            The key's public id.

        Returns
        -------
        int
            Its committed count plus what this transaction recorded.
        """
        return super().key_answers(key_id) + self._key_rows.get(key_id, 0)

    def _connection(self) -> contextlib.AbstractContextManager[Connection]:
        return contextlib.nullcontext(self._conn)  # the transaction's own

    def state(self) -> LedgerState:
        """The budget row, locked until the transaction ends.

        Returns
        -------
        LedgerState
            The current row.
        """
        return self._budget_row()

    def lookup(self, key_id: str, request_id: str) -> StoredAnswer | None:
        """The answer already sent for this key and request id.

        Parameters
        ----------
        key_id, request_id : str
            The key and the client's request id.

        Returns
        -------
        StoredAnswer or None
            The stored answer, or ``None``.
        """
        recorded = self._recorded.get((key_id, request_id))
        if recorded is not None:  # recorded earlier in this transaction
            return recorded
        where = (_answers.c.key_id == key_id) & (_answers.c.request_id == request_id)
        row = self._conn.execute(
            sa.select(
                _answers.c.request_hash,
                _answers.c.response_json,
                _answers.c.created_unix,
            ).where(where)
        ).first()
        if row is None:
            return None
        if self._expired_before is not None and row.created_unix < self._expired_before:
            # Outside the window (not yet pruned): the id is new again.
            self._conn.execute(_answers.delete().where(where))
            return None
        return StoredAnswer(row.request_hash, json.loads(row.response_json))

    def record(
        self,
        previous: LedgerState,
        *,
        key_id: str,
        request_id: str,
        request_hash: str,
        response: dict[str, Any],
        rows: int,
        epsilon_spent: float,
        delta_spent: float,
        state: dict[str, Any],
    ) -> LedgerState:
        """Write one charge: the new budget row, the answer and the key count.

        Parameters
        ----------
        previous : LedgerState
            The row read by :meth:`state` in this transaction.
        key_id, request_id, request_hash : str
            Who asked, under which id, and the digest of the inputs.
        response : dict
            The response body that will be sent.
        rows : int
            Query rows answered.
        epsilon_spent, delta_spent : float
            The mechanism's total spend after this answer.
        state : dict
            The mechanism's state after this answer (server-secret).

        Returns
        -------
        LedgerState
            The new row (committed when the transaction ends).

        Raises
        ------
        LedgerError
            If the spend would go down (never allowed).
        """
        if epsilon_spent < previous.epsilon_spent or delta_spent < previous.delta_spent:
            raise LedgerError("refusing to record a spend lower than the ledger's")
        new = LedgerState(
            previous.version + 1,
            float(epsilon_spent),
            float(delta_spent),
            previous.answers + rows,
            state,
        )
        response_json = json.dumps(response, allow_nan=False, separators=(",", ":"))
        self._last = new
        self._answer_rows.append(
            {
                "key_id": key_id,
                "request_id": request_id,
                "request_hash": request_hash,
                "response_json": response_json,
                "rows": rows,
                "epsilon": new.epsilon_spent - previous.epsilon_spent,
                "delta": new.delta_spent - previous.delta_spent,
                "created_unix": time.time(),
            }
        )
        self._recorded[key_id, request_id] = StoredAnswer(request_hash, response)
        self._key_rows[key_id] = self._key_rows.get(key_id, 0) + rows
        return new

    def flush(self) -> None:
        """Write the charges recorded so far (called once, before the commit).

        The budget row is written once with the last charge's totals and
        state (each charge's row supersedes the one before it), the answers in
        one multi-row insert, and one count update per API key.
        """
        if self._last is None:
            return
        conn = self._conn
        conn.execute(_STATE_WRITE, _state_values(self._last))
        conn.execute(_answers.insert(), self._answer_rows)
        for key_id, rows in self._key_rows.items():
            updated = conn.execute(_KEY_ADD, {"b_key": key_id, "b_rows": rows})
            if updated.rowcount == 0:
                conn.execute(_keys.insert().values(key_id=key_id, answers=rows))
        self._last = None
        self._answer_rows, self._recorded, self._key_rows = [], {}, {}
