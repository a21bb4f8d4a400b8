"""What both optimizer suites share: the split of the repository's arXiv facts that
their runs train, validate and hold out on, one per test module."""

import subprocess

import pytest

import evogate

import stub


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    folder = tmp_path_factory.mktemp("split")
    subprocess.run([evogate.binary(), "split", "--truth", str(stub.TRUTH), "--out", str(folder)],
                   check=True, capture_output=True)
    return folder
