# SPDX-License-Identifier: BSD-3-Clause
"""KDD Cup 99 loader on small files written in the official format."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from dpsvm.datasets import kdd99, load_kddcup99
from dpsvm.datasets.kdd99 import (
    KDDCUP99_CATEGORIES,
    KDDCUP99_COLUMNS,
    KDDCUP99_NUMERIC_BOUNDS,
)

# The first record of kddcup.data_10_percent, as published.
FIRST = (
    "0,tcp,http,SF,181,5450,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,8,8,0.00,0.00,0.00,"
    "0.00,1.00,0.00,0.00,9,9,1.00,0.00,0.11,0.00,0.00,0.00,0.00,0.00,normal."
)
# 38 numeric + protocol 3 + service 70 + flag 11.
N_FEATURES = 122


def record(label="normal.", **fields):
    values = FIRST.split(",")[:-1]
    for k, v in fields.items():
        values[KDDCUP99_COLUMNS.index(k)] = str(v)
    return ",".join([*values, label])


TRAIN = [
    FIRST,
    record("smurf.", protocol_type="icmp", service="ecr_i", flag="SF", src_bytes=1032),
    record("neptune.", service="private", flag="S0", src_bytes=0, dst_bytes=0),
    # unknown service; su_attempted = 2 and count above the public caps
    record("normal.", service="gopher_x", su_attempted=2, count=600),
    record("back.", duration=100000, src_bytes=54540),
]
TEST = [
    record("normal.", protocol_type="udp", service="domain_u"),
    record("apache2.", service="http", flag="RSTR"),
    record("snmpgetattack.", protocol_type="udp", service="snmp"),
]


def write_kdd(directory: Path, train=TRAIN, test=TEST, *, gz=False, subdir=True):
    target = directory / "kddcup99" if subdir else directory
    target.mkdir(parents=True, exist_ok=True)
    for name, rows in (("kddcup.data_10_percent", train), ("corrected", test)):
        text = "\n".join(rows) + "\n"
        if gz:
            with gzip.open(target / f"{name}.gz", "wt", encoding="ascii") as f:
                f.write(text)
        else:
            (target / name).write_text(text, encoding="ascii")
    return target


@pytest.mark.parametrize(("gz", "subdir"), [(False, True), (True, False)])
def test_layout_labels_and_unit_rows(tmp_path, gz, subdir):
    write_kdd(tmp_path, gz=gz, subdir=subdir)
    data = load_kddcup99(tmp_path)
    assert data.X_train.shape == (5, N_FEATURES)
    assert data.X_test.shape == (3, N_FEATURES)
    assert len(data.feature_names) == N_FEATURES
    # +1 = normal (Sarwate et al. Sec. 6), −1 = any attack.
    assert data.y_train.tolist() == [1, -1, -1, 1, -1]
    assert data.y_test.tolist() == [1, -1, -1]
    # Rows divided by their own norm.
    assert np.allclose(np.linalg.norm(data.X_train, axis=1), 1.0)
    assert np.all(np.linalg.norm(data.X_test, axis=1) <= 1.0)
    # One-hot blocks in the published order.
    names = list(data.feature_names)
    row = data.X_train[0]
    for col in ("protocol_type=tcp", "service=http", "flag=SF"):
        assert row[names.index(col)] > 0
    assert names.index("protocol_type=tcp") == 38
    assert names[38 + 3 : 38 + 3 + 70] == [
        f"service={s}" for s in KDDCUP99_CATEGORIES["service"]
    ]
    assert data.positive_rate == pytest.approx(3 / 8)


def test_public_scaling_and_clipping(tmp_path):
    write_kdd(tmp_path)
    data = load_kddcup99(tmp_path)
    names = list(data.feature_names)
    # Unknown service: all service columns zero, counted.
    unknown_row = data.X_train[3]
    service_cols = [i for i, c in enumerate(names) if c.startswith("service=")]
    assert not unknown_row[service_cols].any()
    assert data.unknown_categories["service"] == {"gopher_x": 1, "snmp": 1}
    # Values above the public caps are clipped and counted (train + test).
    assert data.n_clipped["su_attempted"] == 1
    assert data.n_clipped["count"] == 1
    assert data.n_clipped["duration"] == 1
    # Before the row scaling, src_bytes of the first record is 181 / 1e9; the
    # ratio of two columns survives the row scaling.
    r0 = data.X_train[0]
    hi_b = KDDCUP99_NUMERIC_BOUNDS["src_bytes"][1]
    hi_c = KDDCUP99_NUMERIC_BOUNDS["count"][1]
    ratio = r0[names.index("src_bytes")] / r0[names.index("count")]
    assert ratio == pytest.approx((181 / hi_b) / (8 / hi_c))


def test_log_scale_and_constant(tmp_path):
    write_kdd(tmp_path)
    lin = load_kddcup99(tmp_path)
    log = load_kddcup99(tmp_path, log_scale=True, add_constant=True)
    names = list(log.feature_names)
    assert names[-1] == "constant" and log.X_train.shape[1] == N_FEATURES + 1
    j = names.index("src_bytes")
    # log(1 + 181)/log(1 + 1e9) ≫ 181/1e9 before the row scaling.
    assert log.X_train[0, j] > 100 * lin.X_train[0, j]


def test_dos_target(tmp_path):
    write_kdd(tmp_path)
    data = load_kddcup99(tmp_path, target="dos")
    # smurf, neptune, back are DoS; apache2 is a test-only DoS attack.
    assert data.y_train.tolist() == [-1, 1, 1, -1, 1]
    assert data.y_test.tolist() == [-1, 1, -1]
    with pytest.raises(ValueError, match="target"):
        load_kddcup99(tmp_path, target="probe")


def test_subset_is_a_data_independent_seeded_choice(tmp_path):
    rows = [record("normal." if i % 3 else "smurf.", src_bytes=i) for i in range(40)]
    write_kdd(tmp_path / "a", train=rows)
    other = [record("neptune.", src_bytes=1000 + i) for i in range(40)]
    write_kdd(tmp_path / "b", train=other)
    a = load_kddcup99(tmp_path / "a", subset=10, random_state=3)
    b = load_kddcup99(tmp_path / "b", subset=10, random_state=3)
    assert a.X_train.shape == (10, N_FEATURES)
    # The kept positions depend on n and the seed only, not on the records.
    assert np.array_equal(a.subset_indices, b.subset_indices)
    assert a.X_test.shape == (3, N_FEATURES)  # the test set is kept whole
    full = load_kddcup99(tmp_path / "a")
    assert np.allclose(a.X_train, full.X_train[a.subset_indices])
    assert np.array_equal(a.y_train, full.y_train[a.subset_indices])
    c = load_kddcup99(tmp_path / "a", subset=10, random_state=4)
    assert not np.array_equal(a.subset_indices, c.subset_indices)
    with pytest.raises(ValueError, match="exceeds"):
        load_kddcup99(tmp_path / "a", subset=41)
    with pytest.raises(ValueError, match=">= 1"):
        load_kddcup99(tmp_path / "a", subset=0)


def test_return_x_y(tmp_path):
    write_kdd(tmp_path)
    X_train, y_train, X_test, y_test = load_kddcup99(tmp_path, return_X_y=True)
    assert X_train.shape == (5, N_FEATURES) and y_train.shape == (5,)
    assert X_test.shape == (3, N_FEATURES) and y_test.shape == (3,)


def test_malformed_files_name_the_column_never_a_field_or_line(tmp_path):
    # Regression (issue 20, item 3): the field and its line were quoted.
    write_kdd(tmp_path, train=[FIRST, "0,tcp,http,SF,1,2"])
    with pytest.raises(ValueError, match=r"kddcup.data_10_percent: a line has 6"):
        load_kddcup99(tmp_path)
    write_kdd(tmp_path, train=[FIRST, record(src_bytes="Zq7PRIVATE")])
    with pytest.raises(ValueError, match=r": column src_bytes holds a field") as exc:
        load_kddcup99(tmp_path)
    assert "Zq7PRIVATE" not in str(exc.value) and ":2" not in str(exc.value)


def test_missing_files_explain_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        load_kddcup99(tmp_path)
    msg = str(info.value)
    assert "kddcup.data_10_percent" in msg and "corrected" in msg
    assert "download=True" in msg and "DPSVM_DATA" in msg


def _serve(tmp_path, monkeypatch, train, test):
    src = tmp_path / "server"
    src.mkdir()
    urls = {}
    for name, rows in (("kddcup.data_10_percent", train), ("corrected", test)):
        path = src / f"{name}.gz"
        with gzip.open(path, "wt", encoding="ascii") as f:
            f.write("\n".join(rows) + "\n")
        urls[name] = path.as_uri()
    monkeypatch.setattr(kdd99, "KDDCUP99_URLS", urls)
    monkeypatch.setattr(
        kdd99,
        "KDDCUP99_RECORD_COUNTS",
        {"kddcup.data_10_percent": len(TRAIN), "corrected": len(TEST)},
    )


def test_download_checks_record_counts(tmp_path, monkeypatch):
    _serve(tmp_path, monkeypatch, TRAIN, TEST)
    data = load_kddcup99(tmp_path / "data", download=True)
    assert data.X_train.shape == (5, N_FEATURES)
    assert (tmp_path / "data" / "kddcup99" / "corrected.gz").is_file()


def test_download_with_wrong_count_is_deleted(tmp_path, monkeypatch):
    _serve(tmp_path, monkeypatch, TRAIN[:4], TEST)
    with pytest.raises(OSError, match="has 4 records, not the published 5"):
        load_kddcup99(tmp_path / "data", download=True)
    assert not (tmp_path / "data" / "kddcup99" / "kddcup.data_10_percent.gz").exists()
