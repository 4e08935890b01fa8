"""Parquet files of grids (``capsim.grid(..., parquet=PATH)``, ``--format parquet``) read
back by pyarrow (pandas' reader), polars and DuckDB hold the command line's JSON rows: each
column typed as capsim::parquet documents (integers INT64, numbers DOUBLE with NaN for
JSON's null, lists LIST<INT64>, words STRING; ``none`` null in a numeric or list column)."""

import math

import duckdb
import pandas
import polars
import pyarrow
import pyarrow.parquet
import pytest

import capsim
from conftest import EXAMPLES, cli, cli_ok, json_rows

GRIDS = {
    "lesson": (dict(threshold=[2, 3, 5], cooldown=[0, 3, 8], seed="1..=20"),
               ["autoscale", "--threshold", "2,3,5", "--cooldown", "0,3,8", "--seed", "1..=20"]),
    "bounds-none-and-ints": (dict(min_instances=[None, 8], stockout_rounds=[None, "150..190"]),
                             ["autoscale", "--min-instances", "none,8", "--stockout-rounds", "none,150..190"]),
    "warm-pool-priced": (dict(reclaim=["release", "stop"], warm_pool=[0, "6:running"], price="1:0.2:0.05"),
                         ["autoscale", "--reclaim", "release,stop", "--warm-pool", "0,6:running",
                          "--price", "1:0.2:0.05"]),
    "formula": (dict(formula=str(EXAMPLES / "formulas" / "preempted-nodes.formula"), preemption_rate=[None, 0.02]),
                ["autoscale", "--formula", EXAMPLES / "formulas" / "preempted-nodes.formula",
                 "--preemption-rate", "none,0.02"]),
    "consumers": (dict(consumers=[1, 8], arrival_rate=0.25, outage=[None, "1000..2200"], buffer=[None, 500], shipments=800),
                  ["consumers", "--consumers", "1,8", "--arrival-rate", "0.25", "--buffer", "none,500", "--outage",
                   "none,1000..2200", "--shipments", "800"]),
    "bulkhead": (dict(split=["shared", 24], mode="slowdown", breaker=[None, "0.5:9"], seed="1..=3"),
                 ["bulkhead", "--split", "shared,24", "--mode", "slowdown", "--breaker", "none,0.5:9",
                  "--seed", "1..=3"]),
}


def kinds(path):
    """Each column's kind, from the file's schema."""
    out = {}
    for field in pyarrow.parquet.read_schema(path):
        t = field.type
        if pyarrow.types.is_int64(t):
            out[field.name] = "int"
        elif pyarrow.types.is_float64(t):
            out[field.name] = "double"
        elif pyarrow.types.is_string(t) or pyarrow.types.is_large_string(t):
            out[field.name] = "text"
        elif pyarrow.types.is_list(t) and pyarrow.types.is_int64(t.value_type):
            out[field.name] = "list"
        else:
            raise AssertionError(f"{field.name}: {t}")
    return out


def expected(value, kind):
    """The value a column of `kind` holds for the JSON `value` (the module's table)."""
    if value == "none" and kind != "text":
        return None
    if kind == "double":
        return math.nan if value is None else float(value)
    if kind == "text" and value is not None and not isinstance(value, str):
        return str(value)
    return value


def same(a, b):
    if isinstance(b, float) and math.isnan(b):
        return isinstance(a, float) and math.isnan(a)
    if isinstance(b, float):
        return isinstance(a, float) and repr(a) == repr(b)
    if isinstance(b, list):
        return isinstance(a, list) and a == b and all(type(x) is int for x in a)
    return type(a) is type(b) and a == b


def read_all(path):
    """The rows as each reader gives them: pyarrow (pandas' engine), polars, DuckDB."""
    rel = duckdb.sql(f"select * from read_parquet('{path}')")
    return {
        "pyarrow": pyarrow.parquet.read_table(path).to_pylist(),
        "polars": polars.read_parquet(path).to_dicts(),
        "duckdb": [dict(zip(rel.columns, r)) for r in rel.fetchall()],
    }


def assert_parquet_is(path, rows):
    k = kinds(path)
    assert list(k) == list(rows[0])
    for reader, got in read_all(path).items():
        assert len(got) == len(rows), reader
        for i, (g, r) in enumerate(zip(got, rows)):
            assert list(g) == list(r), reader
            for key, value in r.items():
                want = expected(value, k[key])
                assert same(g[key], want), (reader, i, key, g[key], want)
    assert len(pandas.read_parquet(path)) == len(rows)


@pytest.mark.parametrize("name", GRIDS)
def test_a_parquet_file_holds_the_json_rows(name, tmp_path):
    kwargs, args = GRIDS[name]
    rows = json_rows(cli_ok(*args, "--format", "json"))
    path = tmp_path / "grid.parquet"
    assert capsim.grid(args[0], parquet=path, **kwargs) == path
    assert_parquet_is(path, rows)
    # The command line's --format parquet writes the same bytes.
    assert cli_ok(*args, "--format", "parquet") == path.read_bytes()


def test_column_kinds(tmp_path):
    path = tmp_path / "g.parquet"
    capsim.grid("autoscale", min_instances=[None, 8], stockout_rounds=[None, "150..190"], parquet=path)
    k = kinds(path)
    assert (k["min_instances"], k["max_instances"], k["failure_rounds"], k["stockout_rounds"]) == (
        "int", "text", "list", "list")
    assert (k["capacity"], k["max_launching_ratio"], k["launched"], k["policy"]) == ("double", "double", "int", "text")


def test_summaries_and_many_row_groups(tmp_path):
    path = tmp_path / "s.parquet"
    args = ["bulkhead", "--split", "shared,24", "--seed", "1..=40", "--summary"]
    capsim.summary("bulkhead", split=["shared", 24], seed="1..=40", parquet=path)
    assert_parquet_is(path, json_rows(cli_ok(*args, "--format", "json")))
    # 20,000 rows: two row groups of 16,384 and 3,616.
    path = tmp_path / "big.parquet"
    args = ["autoscale", "--threshold", "2,5", "--seed", "1..=10000", "--columns", "launched"]
    capsim.grid("autoscale", threshold=[2, 5], seed="1..=10000", columns="launched", parquet=path)
    meta = pyarrow.parquet.ParquetFile(path).metadata
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [16384, 3616]
    assert_parquet_is(path, json_rows(cli_ok(*args, "--format", "json")))


def test_parquet_errors(tmp_path):
    with pytest.raises(ValueError, match="cannot write /no/such/dir/g.parquet"):
        capsim.grid("autoscale", parquet="/no/such/dir/g.parquet")
    out, err, code = cli("autoscale", "--threshold", "x", "--format", "parquet")
    with pytest.raises(ValueError) as e:
        capsim.grid("autoscale", threshold="x", parquet=tmp_path / "x.parquet")
    assert (code, err) == (2, f"error: {e.value}\n")
    # --columns help lists the metrics, as with any format.
    assert cli_ok("autoscale", "--columns", "help", "--format", "parquet") == cli_ok(
        "autoscale", "--columns", "help")
