"""capsim in Python: the lessons' models run by the capsim library itself, no subprocess.

    import capsim
    df = capsim.grid("autoscale", threshold=[2, 5], cooldown=[0, 8], seed=range(1, 101))
    df.groupby(["threshold", "cooldown"])["launched"].mean()
    capsim.plot("autoscale", threshold=[2, 5])          # a chart, shown inline in Jupyter
    print(capsim.lesson("group"))                        # the lesson's text, in English

Every keyword is a row's JSON key (a flag of ``capsim MODEL --help`` with ``_`` for ``-``)
and takes what the flag takes: a number, a word (``none``, ``lesson``), a range as text
(``"1..=100"``), or a list, tuple, range, NumPy array or pandas Series: a sweep, as the
flag's comma list. ``None`` is ``none``; ``True`` and ``False`` are ``yes`` and ``no``. The
command line's rules apply, and a bad value raises ``ValueError`` with the command line's
one-line message. The values are the command line's: the rows are its ``--format json``
rows, read back exactly.

``formula=`` takes a formula's text (a str with ``=``) or a file's path; ``demand_file=``
takes a demand curve (a list, NumPy array or pandas Series of numbers, one a round) or a
file's path; a list of those is a sweep. A text is read as a file named ``<formula>`` (or
``<formula 1>``, ``<formula 2>``, … in a sweep), a curve as ``<demand>`` (``<demand 1>``, …):
the name the rows and the errors show. ``scenario=`` is a scenario file (autoscale).

Rows are a ``pandas.DataFrame`` where pandas is installed, else a list of dicts. A long grid
runs without the GIL, on every core (``threads=N`` to choose), and Ctrl-C interrupts it.
"""

import gc
import json
import numbers
import os

from . import _capsim

try:  # pandas is optional: without it, rows are lists of dicts.
    import pandas as _pandas
except ImportError:  # pragma: no cover - exercised by the tests with pandas hidden
    _pandas = None

__all__ = ["grid", "summary", "trace", "plot", "lesson", "parameters", "Chart", "MODELS", "LESSONS"]

#: The model commands.
MODELS = ("autoscale", "consumers", "bulkhead")
#: The lessons ``capsim.lesson`` prints ("all": the five, in order).
LESSONS = ("group", "group-sweep", "group-ledger", "consumers", "bulkhead", "all")

# The command line's own output options, which the functions here set themselves.
_OWN = {
    "format": "the rows come back as data; write a file with parquet=PATH",
    "summary": "capsim.summary(...) gives the summaries",
    "evaluations": "capsim.trace('autoscale', ..., evaluations=True) gives them",
}


def _number(x):
    """A number as the flags read it: an integer's digits, a float's shortest text."""
    if isinstance(x, numbers.Integral):
        return str(int(x))
    return repr(float(x))


def _word(v):
    """One value of a flag, as its text."""
    if v is None:
        return "none"
    if isinstance(v, bool) or getattr(getattr(v, "dtype", None), "kind", "") == "b":
        return "yes" if v else "no"
    if isinstance(v, str):
        return v
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, numbers.Real):
        return _number(v)
    raise TypeError(f"{type(v).__name__} is not a flag's value (a number, a word or a list of them)")


def _is_sequence(v):
    """A list of values: a sweep (str and paths are one value)."""
    if isinstance(v, (str, bytes, os.PathLike, dict)):
        return False
    return hasattr(v, "__iter__") and hasattr(v, "__len__")


def _is_curve(v):
    """A demand curve: a sequence of numbers (not of words, paths or curves)."""
    if not _is_sequence(v):
        return False
    items = list(v)
    return all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in items)


class _Files:
    """The texts a command reads as files (formula texts, demand curves), by the names given."""

    def __init__(self):
        self.files = []

    def add(self, name, text):
        self.files.append((name, text))
        return name


def _files_value(key, value, files):
    """`formula=` and `demand_file=`: texts and curves become named files."""
    if key == "formula":
        single = not _is_sequence(value)
        items = [value] if single else list(value)
        texts = [x for x in items if isinstance(x, str) and "=" in x]
        out, k = [], 0
        for x in items:
            if isinstance(x, str) and "=" in x:
                k += 1
                name = "<formula>" if len(texts) == 1 else f"<formula {k}>"
                out.append(files.add(name, x))
            else:
                out.append(_word(x))
        return ",".join(out)
    # demand_file: one curve, or a list of curves and paths.
    if _is_curve(value):
        items, single = [value], True
    elif _is_sequence(value):
        items, single = list(value), False
    else:
        return _word(value)
    curves = sum(1 for x in items if _is_curve(x))
    out, k = [], 0
    for x in items:
        if _is_curve(x):
            k += 1
            name = "<demand>" if single or curves == 1 else f"<demand {k}>"
            out.append(files.add(name, "".join(_number(v) + "\n" for v in x)))
        else:
            out.append(_word(x))
    return ",".join(out)


def _flags(params, files):
    """The (flag, value) pairs of keyword arguments, in the order given."""
    pairs = []
    for key, value in params.items():
        if key in _OWN:
            raise TypeError(f"{key}= is not taken here: {_OWN[key]}")
        flag = key.replace("_", "-")
        if key in ("formula", "demand_file"):
            text = _files_value(key, value, files)
        elif key == "columns" and _is_sequence(value):
            text = ",".join(_word(v) for v in value)
        elif key == "shard" and isinstance(value, tuple):
            text = "/".join(_word(v) for v in value)
        elif _is_sequence(value):
            items = list(value)
            for v in items:
                if _is_sequence(v):
                    raise TypeError(f"{key}=: a sweep is one list of values, not a list of lists")
            text = ",".join(_word(v) for v in items)
        else:
            text = _word(value)
        pairs.append((flag, text))
    return pairs


def _rows(pairs, files):
    """The command's JSON rows: a DataFrame (pandas installed) or a list of dicts."""
    # The rows are many new objects and none a cycle: the collector has nothing to find.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _frame(pairs, files)
    finally:
        if collecting:
            gc.enable()


def _frame(pairs, files):
    if _pandas is None:
        keys, columns = _capsim.rows(pairs, files, False)
        return [dict(zip(keys, values)) for values in zip(*(c for _, c in columns))]
    import numpy

    keys, columns = _capsim.rows(pairs, files, True)
    data = {}
    for key, (kind, values) in zip(keys, columns):
        if kind == "q":
            values = numpy.frombuffer(values, dtype="<i8").astype(numpy.int64)
        elif kind == "d":
            values = numpy.frombuffer(values, dtype="<f8").astype(numpy.float64)
        data[key] = values
    return _pandas.DataFrame(data, columns=keys)


def _command(kind, model, params, extra=()):
    files = _Files()
    pairs = [(kind, model)] + _flags(params, files) + list(extra)
    return pairs, files.files


def grid(model, *, parquet=None, **params):
    """Runs every combination of the parameters' values and returns the rows.

    The rows are ``capsim MODEL ... --format json``'s: one a run, its parameters then its
    metrics, in the command line's order and with its values. ``parquet=PATH`` writes them
    to a Parquet file instead (``--format parquet``) and returns PATH. ``columns=`` picks the
    metrics (a list, or the command line's text; ``"help"`` returns the list of metrics).
    """
    if params.get("columns") == "help":
        pairs, files = _command("model", model, params, [("format", "json")])
        return _capsim.text(pairs, files).split()
    pairs, files = _command("model", model, params, [("format", "json")])
    if parquet is not None:
        _capsim.parquet(pairs, files, os.fspath(parquet))
        return parquet
    return _rows(pairs, files)


def summary(model, *, parquet=None, **params):
    """``capsim MODEL ... --summary``: each combination of the parameters across its seeds,
    the mean, std, min, p5, p50, p95 and max of every metric, one row a combination."""
    pairs, files = _command("model", model, params, [("format", "json"), ("summary", "")])
    if parquet is not None:
        _capsim.parquet(pairs, files, os.fspath(parquet))
        return parquet
    return _rows(pairs, files)


def trace(model, *, evaluations=False, **params):
    """One run, one row a round: ``capsim trace MODEL ... --format json``.

    ``evaluations=True`` (autoscale with a formula) gives the formula's evaluations instead,
    one row each, as Batch's AutoScaleRun records them (round, timestamp, results, error):
    ``capsim trace autoscale ... --evaluations``.
    """
    extra = [("evaluations", "")] if evaluations else [("format", "json")]
    pairs, files = _command("trace", model, params, extra)
    return _rows(pairs, files)


class Chart:
    """A chart: ``capsim plot``'s SVG, which Jupyter shows inline."""

    def __init__(self, svg):
        #: The SVG document, the bytes ``capsim plot -o -`` writes.
        self.svg = svg

    def _repr_svg_(self):
        return self.svg

    def save(self, path):
        """Writes the SVG to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)

    def __repr__(self):
        return f"<capsim.Chart: {len(self.svg)} bytes of SVG>"


def plot(model, *, summary=False, metric=None, **params):
    """``capsim plot MODEL ... -o -``: the runs over the rounds (up to 8 in one chart, 9 to 36
    as small multiples), or with ``summary=True`` a histogram of ``metric`` across the runs."""
    extra = []
    if summary:
        extra.append(("summary", ""))
    if metric is not None:
        extra.append(("metric", _word(metric)))
    pairs, files = _command("plot", model, params, extra)
    return Chart(_capsim.text(pairs, files))


def lesson(name="all", lang="en"):
    """A lesson's output as the lesson program prints it (``capsim lesson NAME --lang
    LANG``): English by default, ``lang="tr"`` the lessons' own Turkish, byte for byte."""
    return _capsim.text([("lesson", name), ("lang", lang)], [])


def parameters(model):
    """The model's parameters, as ``capsim MODEL --help`` lists them: each flag's key, help,
    accepted values, default and lesson value."""
    for m in json.loads(_capsim.params_json())["models"]:
        if m["model"] == model:
            rows = [
                {
                    "key": p["flag"].replace("-", "_"),
                    "help": p["help"],
                    "accepted": p["accepted"],
                    "default": p["default"],
                    "lesson": p["lesson"],
                }
                for p in m["params"]
            ]
            if _pandas is not None:
                return _pandas.DataFrame(rows)
            return rows
    raise ValueError(f"unrecognized model '{model}' (models: {', '.join(MODELS)})")
