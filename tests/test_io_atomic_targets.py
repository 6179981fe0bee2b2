# SPDX-License-Identifier: BSD-3-Clause
"""atomic_write_text never changes what the destination path is (issue 10).

The former writer renamed a temporary file over any destination: ``--out
/dev/null`` run as root replaced the device node with a regular file, a FIFO
was replaced, and a symbolic link became a file.
"""

from __future__ import annotations

import os
import stat
import termios
import threading

import pytest

from dpsvm.cli import main
from dpsvm.io import atomic_write_text


def test_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as f:
            received.append(f.read())

    thread = threading.Thread(target=reader)
    thread.start()
    atomic_write_text(fifo, "1\n-1\n")
    thread.join(timeout=10)
    assert received == [b"1\n-1\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO
    assert os.listdir(tmp_path) == ["pipe"]  # no temporary file


@pytest.fixture
def char_device():
    """A character device of our own: the slave side of a pseudo-terminal.

    Not /dev/null: a regression run as root would replace the machine's
    /dev/null with a regular file. In /dev/pts no file can be created, so the
    old rename-over writer fails there instead of destroying anything.
    """
    master, slave = os.openpty()
    path = os.ttyname(slave)
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # no "\n" -> "\r\n" translation
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    yield path, master
    os.close(slave)
    os.close(master)


def _drain(fd: int, n: int) -> bytes:
    out = b""
    while len(out) < n:
        out += os.read(fd, n - len(out))
    return out


def test_character_device_is_written_through(char_device):
    path, master = char_device
    before = os.lstat(path)
    atomic_write_text(path, "model\n")
    assert _drain(master, 6) == b"model\n"
    after = os.lstat(path)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_symlink_is_followed_and_kept(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    atomic_write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # permissions kept
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real.json"]


def test_dangling_symlink_creates_its_target(tmp_path):
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "sub" / "new.json")
    atomic_write_text(link, "x\n")
    assert link.is_symlink()
    assert (tmp_path / "sub" / "new.json").read_text() == "x\n"


def test_directory_is_refused_and_untouched(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    with pytest.raises(IsADirectoryError):
        atomic_write_text(d, "x")
    link = tmp_path / "to-dir"
    link.symlink_to(d)
    with pytest.raises(IsADirectoryError):
        atomic_write_text(link, "x")
    assert os.listdir(d) == [] and link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["d", "to-dir"]


def test_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(OSError, match="Not a regular file"):
            atomic_write_text(path, "x")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_dash_writes_to_standard_output(capsys):
    atomic_write_text("-", "1\n2\n")
    assert capsys.readouterr().out == "1\n2\n"


# ------------------------------------------------------------ through the CLI
@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n0.1,0.2,1\n-0.3,0.1,-1\n0.2,-0.1,1\n-0.2,-0.4,-1\n")
    return path


def test_cli_out_character_device_and_symlink(tmp_path, data, capsys, char_device):
    path, master = char_device
    train = ("train", "--data", str(data), "--classes", "-1,1")
    assert main([*train, "--out", path]) == 0
    assert stat.S_ISCHR(os.lstat(path).st_mode)
    assert _drain(master, 1) == b"{"
    real = tmp_path / "real.json"
    link = tmp_path / "m.json"
    link.symlink_to(real)
    assert main([*train, "--out", str(link)]) == 0
    assert link.is_symlink() and '"format": "dpsvm-model"' in real.read_text()
    capsys.readouterr()


def test_cli_out_dash_keeps_stdout_clean(tmp_path, data, capsys):
    assert main(["train", "--data", str(data), "--classes", "-1,1", "--out", "-"]) == 0
    cap = capsys.readouterr()
    assert cap.out.lstrip().startswith("{") and '"dpsvm-model"' in cap.out
    assert "dpsvm: trained" in cap.err


def test_cli_report_failure_never_removes_a_device(
    data, capsys, monkeypatch, char_device
):
    path, _ = char_device
    import dpsvm.io as dio

    real = dio.atomic_write_text

    def failing(path, text):
        if str(path).endswith("r.json"):
            raise PermissionError(13, "Permission denied", str(path))
        real(path, text)

    monkeypatch.setattr(dio, "atomic_write_text", failing)
    code = main(["train", "--data", str(data), "--classes", "-1,1",
                 "--out", path, "--report", str(data.parent / "r.json")])  # fmt: skip
    assert code == 1
    # The failed report must not "clean up" the model written to the device.
    assert os.path.exists(path)
    assert stat.S_ISCHR(os.lstat(path).st_mode)
    capsys.readouterr()


def test_cli_out_and_report_cannot_both_be_stdout(data, capsys):
    code = main(["train", "--data", str(data), "--classes", "-1,1",
                 "--out", "-", "--report", "-"])  # fmt: skip
    assert code == 2
    cap = capsys.readouterr()
    assert cap.out == "" and "--out and --report must be different" in cap.err
