"""What the tests share: the command line to compare with, and a strict comparison.

The command line is ``$CAPSIM_CLI``, else the repository's ``target/release/capsim``
(``scripts/python-test.sh`` builds it, with the parquet feature).
"""

import json
import math
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
CLI = os.environ.get("CAPSIM_CLI", str(REPO / "target" / "release" / "capsim"))


def cli(*args, cwd=None):
    """Runs the command line: (stdout bytes, stderr text, exit status)."""
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, cwd=cwd)
    return done.stdout, done.stderr.decode(), done.returncode


def cli_ok(*args, cwd=None):
    """The command line's stdout, the command succeeding."""
    out, err, code = cli(*args, cwd=cwd)
    assert code == 0 and err == "", (args, err)
    return out


def cli_error(*args, cwd=None):
    """The command line's one error line, without ``error: `` (the command failing)."""
    out, err, code = cli(*args, cwd=cwd)
    assert code != 0 and err.endswith("\n") and err.count("\n") == 1, (args, out, err)
    line = err[:-1]
    return line[len("error: "):] if line.startswith("error: ") else line


def json_rows(out):
    """The JSON Lines of the command line's stdout, each row's keys in order."""
    return [json.loads(line) for line in out.decode().splitlines()]


def same_value(a, b, float_column=False):
    """Whether `a` (from the package) is the JSON value `b`, type and all: an int is an int,
    a float the same float (its sign too), JSON's null None or (in a float column) NaN. In a
    DataFrame's float64 column (`float_column`: pandas' type for a column of ints and floats,
    a trace's demand) an int is the float of the same value, exactly."""
    if b is None:
        return a is None or (type(a) is float and math.isnan(a))
    if type(b) is float:
        return type(a) is float and (repr(a) == repr(b))
    if type(b) is int and float_column:
        return type(a) is float and abs(b) < 2**53 and a == float(b)
    if type(b) is int:
        return type(a) is int and a == b
    if type(b) is list:
        return type(a) is list and len(a) == len(b) and all(map(same_value, a, b))
    return type(a) is type(b) and a == b


def assert_frame_is(df, rows):
    """Asserts the DataFrame `df` holds the JSON `rows`: the same keys in the same order,
    the same number of rows, every value the same (see `same_value`)."""
    assert len(rows) > 0
    keys = list(rows[0])
    assert all(list(r) == keys for r in rows)
    assert list(df.columns) == keys
    assert len(df) == len(rows)
    for key in keys:
        values = df[key].tolist()
        floats = str(df[key].dtype) == "float64"
        for i, (a, r) in enumerate(zip(values, rows)):
            assert same_value(a, r[key], floats), (key, i, a, r[key])


def assert_dicts_are(dicts, rows):
    """Asserts the list of dicts is the JSON rows: keys in order, values the same."""
    assert len(dicts) == len(rows)
    for d, r in zip(dicts, rows):
        assert list(d) == list(r)
        for k in r:
            assert same_value(d[k], r[k]) and (d[k] is None) == (r[k] is None), (k, d[k], r[k])


@pytest.fixture
def no_pandas(monkeypatch):
    """The package as it is without pandas: rows as lists of dicts."""
    import capsim

    monkeypatch.setattr(capsim, "_pandas", None)
