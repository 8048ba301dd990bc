"""The Python package against the command line: same flows, same sweep table, same errors;
and the Ray backend against the local one."""

import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import dctc
from common import SCENARIO

REPO = Path(__file__).resolve().parents[3]

GRID = {"workload[0].load": [0.2, 0.5], "seed": range(1, 3)}
CLI_GRID = ["--set", "workload[0].load=0.2,0.5", "--set", "seed=1..2"]


@pytest.fixture(scope="session")
def cli():
    """The dctc binary: $DCTC_BIN, else the workspace's debug build of the same tree."""
    if os.environ.get("DCTC_BIN"):
        return os.environ["DCTC_BIN"]
    subprocess.run(["cargo", "build", "-q", "-p", "dctc"], cwd=REPO, check=True)
    return str(REPO / "target" / "debug" / "dctc")


@pytest.fixture()
def scenario(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    return path


def read_csv(path):
    # The exact double each field names, as the Rust side parses it (pandas >= 3 by default).
    if int(pd.__version__.split(".")[0]) >= 3:
        return pd.read_csv(path)
    return pd.read_csv(path, float_precision="round_trip")


def without_provenance(summary):
    return {k: v for k, v in summary.items() if k != "dctc"}


def test_run_flows_and_ports_equal_the_cli_tables(cli, scenario, tmp_path):
    subprocess.run(
        [cli, "run", str(scenario), "--out", str(tmp_path / "out"), "--quiet"],
        check=True,
        capture_output=True,
    )
    r = dctc.run(scenario)
    assert len(r.flows) > 50, "the scenario should finish flows"
    assert_frame_equal(r.flows, read_csv(tmp_path / "out" / "flows.csv"), check_exact=True)
    # ports.csv rounds two columns; the frame holds the engine's values, which round to the
    # CSV's text exactly.
    rounded = {"mean_queue_bytes": ".1f", "utilization": ".6f"}
    csv_ports = read_csv(tmp_path / "out" / "ports.csv")
    assert_frame_equal(r.ports.drop(columns=list(rounded)), csv_ports.drop(columns=list(rounded)), check_exact=True)
    text = pd.read_csv(tmp_path / "out" / "ports.csv", dtype=str)
    for column, spec in rounded.items():
        assert [format(x, spec) for x in r.ports[column]] == list(text[column]), column
    assert (r.ports["utilization"] != csv_ports["utilization"]).any(), "the frame should not be the rounded CSV"
    # Each table's CSV bytes are the CLI's file, from the same columns.
    for name, table in r._raw.items():
        assert table.to_csv() == (tmp_path / "out" / f"{name}.csv").read_bytes(), name
    with open(tmp_path / "out" / "summary.json") as f:
        assert without_provenance(r.summary) == without_provenance(json.load(f))
    assert r.report_html.lstrip().lower().startswith("<!doctype html")


def test_text_dict_and_seed_inputs_match_the_file(scenario):
    by_path = dctc.run(scenario).flows
    assert_frame_equal(dctc.run(SCENARIO).flows, by_path, check_exact=True)
    doc = {
        "name": "t",
        "engine": "packet",
        "duration_ms": 1.0,
        "seed": 1,
        "fabric": {"kind": "preset", "name": "flowtune-144"},
        "workload": [{"kind": "poisson", "cdf": "websearch", "load": 0.3}],
        "schemes": [{"name": "dctcp"}, {"name": "newreno"}],
    }
    assert_frame_equal(dctc.run(doc).flows, by_path, check_exact=True)
    other = dctc.run(scenario, seed=2).flows
    assert not other.equals(by_path), "another seed must give other flows"


def test_polars_and_arrow_frames_hold_the_same_flows(scenario):
    import polars as pl
    pandas_flows = dctc.run(scenario).flows
    polars_flows = dctc.run(scenario, dataframe="polars").flows
    assert isinstance(polars_flows, pl.DataFrame)
    assert_frame_equal(polars_flows.to_pandas(), pandas_flows, check_exact=True)
    arrow_flows = dctc.run(scenario, dataframe="arrow").flows
    assert arrow_flows.num_rows == len(pandas_flows)


def test_a_bad_key_raises_with_the_cli_key_path_and_message(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SCENARIO.replace('name = "dctcp"', 'name = "dctcp"\necn_k = 5'))
    with pytest.raises(dctc.ScenarioError) as info:
        dctc.run(bad)
    e = info.value
    assert e.key == "schemes[0].ecn_k", e.key
    assert e.file == str(bad)
    assert "did you mean `ecn_k_bytes`" in e.reason
    cli_run = subprocess.run([cli, "validate", str(bad)], capture_output=True, text=True)
    assert cli_run.returncode == 2
    assert cli_run.stderr.strip() == f"error: {e}"


def test_a_bad_dict_value_and_a_bad_grid_value_name_their_key():
    with pytest.raises(dctc.ScenarioError) as info:
        dctc.run({"engine": "packet", "duration_ms": -1.0, "fabric": {"kind": "preset", "name": "flowtune-144"}})
    assert info.value.key == "duration_ms"
    # Refused while planning, before anything runs.
    with pytest.raises(dctc.ScenarioError) as info:
        dctc.sweep(SCENARIO, grid={"seed": [1], "duration_ms": [1.0, -2.0]})
    assert info.value.key == "duration_ms"
    # Python's wording of the point (the grid keys), not the command line's `--set`.
    assert str(info.value).startswith(
        'grid["seed"] = 1, grid["duration_ms"] = -2.0 (point `seed=1,duration_ms=-2.0`): '
    ), str(info.value)
    assert "--set" not in str(info.value)
    # A load past what the engine accepts: refused while planning too (validate makes every
    # check a run makes), before the first point runs.
    with pytest.raises(dctc.ScenarioError) as info:
        dctc.sweep(SCENARIO, grid={"workload[0].load": [0.2, 7.0]})
    assert info.value.key == "workload[0].load", info.value.key
    assert str(info.value).startswith(
        'grid["workload[0].load"] = 7.0 (point `load=7.0`): '
    ), str(info.value)
    with pytest.raises(dctc.DctcError) as info:
        dctc.sweep(SCENARIO, grid={"workload[3].load": [0.2]})
    assert str(info.value).startswith('grid["workload[3].load"] = 0.2: '), str(info.value)
    with pytest.raises(dctc.DctcError) as info:
        dctc.sweep(SCENARIO, grid={"seed": [1], "workload..load": [0.2]})
    assert str(info.value).startswith('grid["workload..load"]: '), str(info.value)
    with pytest.raises(TypeError, match=r'grid\["seed"\]: \[1\] is not a single value'):
        dctc.sweep(SCENARIO, grid={"seed": [[1]]})
    with pytest.raises(ValueError, match=r'grid\["seed"\]: give a list of values'):
        dctc.sweep(SCENARIO, grid={"seed": 3})


def test_local_sweep_equals_the_cli_sweep_csv(cli, scenario, tmp_path):
    subprocess.run(
        [cli, "sweep", str(scenario), "--out", str(tmp_path / "sw"), "--quiet", *CLI_GRID],
        check=True,
        capture_output=True,
    )
    expected = read_csv(tmp_path / "sw" / "sweep.csv")
    table = dctc.sweep(scenario, grid=GRID, jobs=2)
    assert len(table) == 8, "4 points x 2 schemes"
    assert list(table["scheme"][:2]) == ["dctcp", "newreno"]
    # Integer-valued metrics read from CSV as int64; ours are all float64.
    assert_frame_equal(table, expected, check_exact=True, check_dtype=False)
    assert_frame_equal(dctc.sweep(scenario, grid=GRID, jobs=1), table, check_exact=True)


def test_ray_backend_returns_the_local_table(scenario):
    import ray
    local = dctc.sweep(scenario, grid=GRID, backend="local")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    calls = []
    try:
        remote = dctc.sweep(scenario, grid=GRID, backend="ray", progress=lambda *a: calls.append(a))
    finally:
        ray.shutdown()
    assert_frame_equal(remote, local, check_exact=True)
    # Progress on the Ray backend: every point, once, in the order they finished.
    assert calls == [("points", i, 4) for i in range(5)], calls
