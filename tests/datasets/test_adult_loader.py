# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the UCI Adult loader: parsing, public preprocessing, file discovery."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils import Bunch

from dpsvm.datasets import _paths, adult, load_adult
from dpsvm.datasets._download import ChecksumMismatchError
from dpsvm.exceptions import PrivacyLeakWarning


def _shared_adult() -> Path:
    """The real files' folder: $DPSVM_DATA/adult, else the default data directory.

    Resolved when a test runs (not at import), so that DPSVM_DATA set for the
    run is honoured, as by every data-dependent test.
    """
    data_dir = _paths.resolve_data_dir()
    return (data_dir if data_dir is not None else _paths._repo_shared_dir()) / "adult"


# 6 numeric + (8 + 16 + 7 + 14 + 6 + 5 + 2 + 41) = 6 + 99 one-hot columns.
N_FEATURES = 105

TRAIN_ROWS = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
    "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, "
    "Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, >50K",
    # missing workclass and occupation: dropped
    "54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, "
    "Asian-Pac-Islander, Male, 0, 0, 60, South, >50K",
    # unknown country; capital-gain and capital-loss above the public caps
    "30, Private, 100000, Masters, 14, Never-married, Sales, Not-in-family, "
    "White, Female, 120000, 6000, 99, Atlantis, >50K",
]
TEST_ROWS = [
    "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, "
    "Black, Male, 0, 0, 40, United-States, <=50K.",
    # missing native-country: dropped
    "38, Private, 89814, HS-grad, 9, Married-civ-spouse, Farming-fishing, "
    "Husband, White, Male, 0, 0, 50, ?, <=50K.",
    "44, Private, 160323, Some-college, 10, Married-civ-spouse, "
    "Machine-op-inspct, Husband, Black, Male, 7688, 0, 40, United-States, >50K.",
]


def write_adult(
    directory: Path,
    train: list[str] = TRAIN_ROWS,
    test: list[str] = TEST_ROWS,
    *,
    subdir: bool = True,
    gz: bool = False,
) -> Path:
    """Write adult.data / adult.test in the official layout."""
    target = directory / "adult" if subdir else directory
    target.mkdir(parents=True, exist_ok=True)
    texts = {
        "adult.data": "\n".join(train) + "\n\n",
        "adult.test": "|1x3 Cross validator\n" + "\n".join(test) + "\n\n",
    }
    for name, text in texts.items():
        if gz:
            with gzip.open(target / f"{name}.gz", "wt", encoding="utf-8") as f:
                f.write(text)
        else:
            (target / name).write_text(text, encoding="utf-8")
    return directory


@pytest.fixture
def no_default_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Hide every default location (env var, shared folders, ~/.cache)."""
    monkeypatch.delenv("DPSVM_DATA", raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(_paths, "_repo_shared_dir", lambda: tmp_path / "no" / "such")
    return tmp_path


# --------------------------------------------------------------------------- parsing


def test_small_file_parsing(tmp_path: Path) -> None:
    b = load_adult(write_adult(tmp_path))
    assert isinstance(b, Bunch)
    assert b.X_train.shape == (3, N_FEATURES)
    assert b.X_test.shape == (2, N_FEATURES)
    np.testing.assert_array_equal(b.y_train, [-1, 1, 1])
    np.testing.assert_array_equal(b.y_test, [-1, 1])  # trailing periods handled
    assert b.y_train.dtype.kind == "i"
    assert b.n_dropped_missing == 2
    assert b.n_unknown_categories == 1
    assert b.unknown_categories == {"native-country": {"Atlantis": 1}}
    assert b.n_clipped["capital-gain"] == 1
    assert b.n_clipped["capital-loss"] == 1
    assert b.n_clipped["age"] == 0
    assert b.positive_rate == pytest.approx(3 / 5)
    assert len(b.feature_names) == N_FEATURES
    assert "Atlantis" not in " ".join(b.feature_names)


def test_known_row_transform(tmp_path: Path) -> None:
    b = load_adult(write_adult(tmp_path))
    names = list(b.feature_names)
    # Row 4 of TRAIN_ROWS (the 3rd kept row). Public scaling (x - lo) / (hi - lo):
    # age (30-17)/73, fnlwgt 1e5/1.5e6, education-num (14-1)/15, capital-gain
    # clipped to 99999 -> 1, capital-loss clipped to 5000 -> 1, hours (99-1)/98 = 1.
    expected = np.zeros(N_FEATURES)
    expected[:6] = [13 / 73, 1e5 / 1.5e6, 13 / 15, 1.0, 1.0, 1.0]
    for name in (
        "workclass=Private",
        "education=Masters",
        "marital-status=Never-married",
        "occupation=Sales",
        "relationship=Not-in-family",
        "race=White",
        "sex=Female",
    ):  # native-country unknown -> all zeros
        expected[names.index(name)] = 1.0
    expected /= np.linalg.norm(expected)
    np.testing.assert_allclose(b.X_train[2], expected, rtol=0, atol=1e-15)


def test_feature_name_layout(tmp_path: Path) -> None:
    names = list(load_adult(write_adult(tmp_path), add_constant=True).feature_names)
    assert names[:6] == [
        "age",
        "fnlwgt",
        "education-num",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
    ]
    sizes = {c: len(v) for c, v in adult.ADULT_CATEGORIES.items()}
    assert sizes == {
        "workclass": 8,
        "education": 16,
        "marital-status": 7,
        "occupation": 14,
        "relationship": 6,
        "race": 5,
        "sex": 2,
        "native-country": 41,
    }
    assert len(names) == N_FEATURES + 1 and names[-1] == "constant"
    assert len(set(names)) == len(names)


def test_add_constant(tmp_path: Path) -> None:
    b = load_adult(write_adult(tmp_path), add_constant=True)
    plain = load_adult(tmp_path)
    assert b.X_train.shape == (3, N_FEATURES + 1)
    assert b.feature_names[-1] == "constant"
    # Before normalisation the row is [z, 1], so after it the last entry is
    # 1 / sqrt(||z||^2 + 1) and the rest is z / sqrt(||z||^2 + 1).
    for i in range(3):
        z_norm_sq = 1 / b.X_train[i, -1] ** 2 - 1
        np.testing.assert_allclose(
            b.X_train[i, :-1], plain.X_train[i] * np.sqrt(z_norm_sq) * b.X_train[i, -1]
        )
    np.testing.assert_allclose(np.linalg.norm(b.X_train, axis=1), 1.0)


def test_return_X_y(tmp_path: Path) -> None:
    out = load_adult(write_adult(tmp_path), return_X_y=True)
    assert isinstance(out, tuple) and len(out) == 4
    ref = load_adult(tmp_path)
    for got, key in zip(out, ("X_train", "y_train", "X_test", "y_test"), strict=True):
        np.testing.assert_array_equal(got, ref[key])


def test_row_norms_are_one(tmp_path: Path) -> None:
    b = load_adult(write_adult(tmp_path))
    for X in (b.X_train, b.X_test):
        norms = np.linalg.norm(X, axis=1)
        assert np.all(norms <= 1 + 1e-12)
        np.testing.assert_allclose(norms, 1.0, atol=1e-12)


def test_flat_layout_and_gz(tmp_path: Path) -> None:
    ref = load_adult(write_adult(tmp_path / "a"))
    for subdir, gz in ((False, False), (True, True), (False, True)):
        d = write_adult(tmp_path / f"{subdir}-{gz}", subdir=subdir, gz=gz)
        b = load_adult(d)
        np.testing.assert_array_equal(b.X_train, ref.X_train)
        np.testing.assert_array_equal(b.y_test, ref.y_test)
        assert b.files["adult.data"].endswith(".gz") == gz


def test_irregular_whitespace(tmp_path: Path) -> None:
    ref = load_adult(write_adult(tmp_path / "a"))
    messy_train = [
        r.replace(", ", " ,\t ").replace("Male", "Male  ") for r in TRAIN_ROWS
    ]
    messy_test = ["  " + r + "\t" for r in TEST_ROWS]
    b = load_adult(write_adult(tmp_path / "b", messy_train, messy_test))
    np.testing.assert_array_equal(b.X_train, ref.X_train)
    np.testing.assert_array_equal(b.X_test, ref.X_test)
    assert b.n_dropped_missing == 2


def test_question_mark_inside_a_value_is_not_missing(tmp_path: Path) -> None:
    row = TRAIN_ROWS[0].replace("United-States", "Where?")
    b = load_adult(write_adult(tmp_path, [row, TRAIN_ROWS[1]]))
    assert b.n_dropped_missing == 1  # only the test file's '?' row
    assert b.unknown_categories == {"native-country": {"Where?": 1}}


def test_malformed_line(tmp_path: Path) -> None:
    bad = [*TRAIN_ROWS[:2], "39, State-gov, 77516"]
    with pytest.raises(ValueError, match=r"adult\.data: a line has 3 .*expected 15"):
        load_adult(write_adult(tmp_path, bad))


def test_bad_label(tmp_path: Path) -> None:
    # Regression (issue 20, item 3): the label found and its line were quoted.
    bad = [TRAIN_ROWS[0].replace("<=50K", "Zq7PRIVATE")]
    with pytest.raises(ValueError, match=r"adult\.data: the income column") as exc:
        load_adult(write_adult(tmp_path, bad))
    assert "Zq7PRIVATE" not in str(exc.value) and ":1" not in str(exc.value)


def test_bad_number(tmp_path: Path) -> None:
    bad = [TRAIN_ROWS[0], TRAIN_ROWS[1].replace("83311", "987654x")]
    with pytest.raises(ValueError, match=r"adult\.data: column fnlwgt holds") as exc:
        load_adult(write_adult(tmp_path, bad))
    assert "987654" not in str(exc.value)


def test_bad_column_scaling(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="column_scaling"):
        load_adult(write_adult(tmp_path), column_scaling="max")  # type: ignore[call-overload]


# ------------------------------------------------------------- privacy of the map


def test_row_transform_does_not_depend_on_other_rows(tmp_path: Path) -> None:
    shared_row = TRAIN_ROWS[0]
    others_a = TRAIN_ROWS[1:]
    others_b = [
        "90, Without-pay, 1400000, Doctorate, 16, Widowed, Armed-Forces, Wife, "
        "Other, Female, 99999, 4000, 1, Holand-Netherlands, >50K",
        "17, Federal-gov, 5, Preschool, 1, Separated, Tech-support, Unmarried, "
        "Black, Male, 0, 0, 98, Peru, <=50K",
    ]
    a = load_adult(write_adult(tmp_path / "a", [shared_row, *others_a]))
    b = load_adult(write_adult(tmp_path / "b", [shared_row, *others_b]))
    np.testing.assert_array_equal(a.X_train[0], b.X_train[0])
    # Sanity check that this comparison can detect dependence: the data-max
    # scaling of the same row does change with the other rows.
    with pytest.warns(PrivacyLeakWarning):
        a_max = load_adult(tmp_path / "a", column_scaling="data-max")
    with pytest.warns(PrivacyLeakWarning):
        b_max = load_adult(tmp_path / "b", column_scaling="data-max")
    assert not np.allclose(a_max.X_train[0], b_max.X_train[0])


def test_data_max_warns_and_names_parameter(tmp_path: Path) -> None:
    with pytest.warns(PrivacyLeakWarning, match="column_scaling='public'"):
        b = load_adult(write_adult(tmp_path), column_scaling="data-max")
    assert b.column_scaling == "data-max"
    np.testing.assert_allclose(np.linalg.norm(b.X_train, axis=1), 1.0)
    # Before the row scaling each column was divided by its train+test maximum:
    # age maxima are 50 (train) and 44 (test) -> the kept train ages 39, 50, 30
    # become 39/50, 1, 30/50; ratios are preserved by the per-row division only
    # up to each row's norm, so compare age / fnlwgt ratios (fnlwgt max 226802).
    ratio = b.X_train[:, 0] / b.X_train[:, 1]
    np.testing.assert_allclose(
        ratio, (np.array([39, 50, 30]) / 50) / (np.array([77516, 83311, 1e5]) / 226802)
    )


def test_public_scaling_does_not_warn(tmp_path: Path) -> None:
    # filterwarnings=error turns any warning into a failure here.
    load_adult(write_adult(tmp_path))


# --------------------------------------------------------------- file discovery


def test_missing_files_message(no_default_dirs: Path) -> None:
    empty = no_default_dirs / "empty"
    with pytest.raises(FileNotFoundError) as info:
        load_adult(empty)
    msg = str(info.value)
    assert "adult.data" in msg and "adult.test" in msg
    assert str(empty / "adult" / "adult.data") in msg
    assert str(empty / "adult.test.gz") in msg
    assert "data_dir=" in msg and "DPSVM_DATA" in msg and "download=True" in msg
    # An explicit directory is the only place searched.
    assert ".cache" not in msg


def test_missing_everywhere_lists_cache(no_default_dirs: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"\.cache/dpsvm/adult/adult\.data"):
        load_adult()


def test_only_one_file_missing(tmp_path: Path) -> None:
    write_adult(tmp_path)
    (tmp_path / "adult" / "adult.test").unlink()
    with pytest.raises(FileNotFoundError, match=r"not found: adult\.test\."):
        load_adult(tmp_path)


def test_env_var_honoured(
    no_default_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = write_adult(no_default_dirs / "envdata")
    monkeypatch.setenv("DPSVM_DATA", str(d))
    b = load_adult()
    assert b.files["adult.data"] == str(d / "adult" / "adult.data")
    assert b.X_train.shape == (3, N_FEATURES)


def test_cache_dir_searched_without_explicit_dir(no_default_dirs: Path) -> None:
    write_adult(no_default_dirs / "home" / ".cache" / "dpsvm")
    assert load_adult().X_test.shape == (2, N_FEATURES)


# --------------------------------------------------------------------- download


def _fake_remote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Serve small fake Adult files from file:// URLs with their true digests."""
    remote = write_adult(tmp_path / "remote", subdir=False)
    contents = {n: (remote / n).read_bytes() for n in ("adult.data", "adult.test")}
    monkeypatch.setattr(
        adult, "ADULT_URLS", {n: (remote / n).as_uri() for n in contents}
    )
    monkeypatch.setattr(
        adult,
        "ADULT_CHECKSUMS",
        {
            n: {
                "md5": hashlib.md5(c).hexdigest(),
                "sha256": hashlib.sha256(c).hexdigest(),
            }
            for n, c in contents.items()
        },
    )
    return contents


def test_download_into_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contents = _fake_remote(tmp_path, monkeypatch)
    dest = tmp_path / "dl"
    b = load_adult(dest, download=True)
    for name, data in contents.items():
        assert (dest / "adult" / name).read_bytes() == data
    assert b.X_train.shape == (3, N_FEATURES)
    # A second call finds the files without downloading.
    monkeypatch.setattr(adult, "ADULT_URLS", {})
    assert load_adult(dest).X_test.shape == (2, N_FEATURES)


def test_download_default_goes_to_cache(
    no_default_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_remote(no_default_dirs, monkeypatch)
    load_adult(download=True)
    cache = no_default_dirs / "home" / ".cache" / "dpsvm" / "adult"
    assert sorted(p.name for p in cache.iterdir()) == ["adult.data", "adult.test"]


def test_download_checksum_mismatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_remote(tmp_path, monkeypatch)
    bad = {n: dict(v) for n, v in adult.ADULT_CHECKSUMS.items()}
    bad["adult.data"]["md5"] = adult.ADULT_CHECKSUMS["adult.test"]["md5"]
    monkeypatch.setattr(adult, "ADULT_CHECKSUMS", bad)
    dest = tmp_path / "dl"
    with pytest.raises(ChecksumMismatchError, match="md5"):
        load_adult(dest, download=True)
    assert list((dest / "adult").iterdir()) == []


@pytest.mark.adult
def test_official_checksums_match_sources_md() -> None:
    sources = _shared_adult() / "SOURCES.md"
    if not sources.is_file():
        pytest.skip(f"{sources} not present")
    text = sources.read_text(encoding="utf-8")
    for sums in adult.ADULT_CHECKSUMS.values():
        assert sums["md5"] in text and sums["sha256"] in text


# ------------------------------------------------------------- the real files


def _require_real_files() -> Path:
    shared = _shared_adult()
    needed = [shared / "adult.data.gz", shared / "adult.test.gz"]
    if not all(p.is_file() for p in needed):
        pytest.skip(
            f"UCI Adult files not found in {shared} (set DPSVM_DATA; see SOURCES.md)"
        )
    return shared.parent


@pytest.fixture(scope="module")
def real() -> Bunch:
    return load_adult(_require_real_files())


@pytest.mark.adult
@pytest.mark.slow
class TestRealAdult:
    def test_counts(self, real: Bunch) -> None:
        # Spec 6.2: 45,222 complete rows, 11,208 positive (0.24784).
        assert real.X_train.shape == (30162, N_FEATURES)
        assert real.X_test.shape == (15060, N_FEATURES)
        assert real.n_dropped_missing == (32561 + 16281) - 45222
        n_pos = int((real.y_train == 1).sum() + (real.y_test == 1).sum())
        assert n_pos == 11208
        assert real.positive_rate == pytest.approx(11208 / 45222)
        assert round(real.positive_rate, 4) == 0.2478
        assert set(np.unique(real.y_train)) == {-1, 1}

    def test_norms_and_range(self, real: Bunch) -> None:
        for X in (real.X_train, real.X_test):
            norms = np.linalg.norm(X, axis=1)
            assert norms.max() <= 1 + 1e-12
            assert norms.min() >= 1 - 1e-12
            assert X.min() >= 0

    def test_no_unknown_categories_and_no_clipping(self, real: Bunch) -> None:
        assert real.n_unknown_categories == 0
        assert all(v == 0 for v in real.n_clipped.values())

    def test_exactly_one_hot_per_attribute(self, real: Bunch) -> None:
        names = np.asarray(real.feature_names)
        for attr in adult.ADULT_CATEGORIES:
            cols = [i for i, n in enumerate(names) if n.startswith(attr + "=")]
            nz = (real.X_train[:, cols] > 0).sum(axis=1)
            np.testing.assert_array_equal(nz, 1)

    def test_first_row_lines_up_with_names(self, real: Bunch) -> None:
        # First record of adult.data: 39, State-gov, 77516, Bachelors, 13,
        # Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40,
        # United-States, <=50K.
        x = real.X_train[0]
        names = list(real.feature_names)
        on = {names[i] for i in np.flatnonzero(x[6:] > 0) + 6}
        assert on == {
            "workclass=State-gov",
            "education=Bachelors",
            "marital-status=Never-married",
            "occupation=Adm-clerical",
            "relationship=Not-in-family",
            "race=White",
            "sex=Male",
            "native-country=United-States",
        }
        raw = np.array(
            [(39 - 17) / 73, 77516 / 1.5e6, 12 / 15, 2174 / 99999, 0.0, 39 / 98]
        )
        scale = x[names.index("sex=Male")]  # = 1 / (pre-normalisation norm)
        np.testing.assert_allclose(x[:6], raw * scale, rtol=1e-12)
        assert real.y_train[0] == -1

    def test_parsing_is_fast(self) -> None:
        import time

        d = _require_real_files()
        # CPU time of this process, so that other jobs on a shared machine do
        # not make the check flaky.
        t0 = time.process_time()
        load_adult(d)
        assert time.process_time() - t0 < 2.0

    def test_plain_copy_loads_identically(self, real: Bunch, tmp_path: Path) -> None:
        target = tmp_path / "adult"
        target.mkdir()
        for name in ("adult.data", "adult.test"):
            with gzip.open(_shared_adult() / f"{name}.gz", "rb") as src:
                with open(target / name, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            assert (
                hashlib.md5((target / name).read_bytes()).hexdigest()
                == adult.ADULT_CHECKSUMS[name]["md5"]
            )
        b = load_adult(tmp_path)
        assert b.files["adult.data"] == str(target / "adult.data")
        np.testing.assert_array_equal(b.X_train, real.X_train)
        np.testing.assert_array_equal(b.y_test, real.y_test)


def test_real_file_tests_read_dpsvm_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: the real-file tests looked only next to the checkout and
    # ignored DPSVM_DATA. They now find (and load) the files DPSVM_DATA names.
    monkeypatch.setattr(_paths, "_repo_shared_dir", lambda: tmp_path / "no" / "such")
    write_adult(tmp_path / "elsewhere", gz=True)
    (tmp_path / "elsewhere" / "adult" / "SOURCES.md").write_text("sums")
    monkeypatch.setenv("DPSVM_DATA", str(tmp_path / "elsewhere"))
    assert _shared_adult() == tmp_path / "elsewhere" / "adult"
    assert _require_real_files() == tmp_path / "elsewhere"
    assert load_adult(_require_real_files()).X_test.shape == (2, N_FEATURES)
    # A DPSVM_DATA without the files: the real-file tests skip, whatever lies
    # next to the checkout.
    monkeypatch.setenv("DPSVM_DATA", str(tmp_path / "empty"))
    with pytest.raises(pytest.skip.Exception, match="DPSVM_DATA"):
        _require_real_files()
