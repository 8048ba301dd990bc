"""Progress: the callback and the bar of `dctc.run` and `dctc.sweep`, and that reporting it
changes no result."""

import sys

import pytest
from pandas.testing import assert_frame_equal

import dctc
from common import SCENARIO


def test_a_run_reports_each_scheme_from_0_to_its_simulated_end_and_the_same_results():
    calls = []
    r = dctc.run(SCENARIO, progress=lambda *a: calls.append(a))
    quiet = dctc.run(SCENARIO, progress=False)
    assert r.summary == quiet.summary
    assert_frame_equal(r.flows, quiet.flows)
    assert [c[0] for c in calls if c[1] == 0] == ["dctcp", "newreno"], calls
    for scheme in ["dctcp", "newreno"]:
        mine = [(done, total) for label, done, total in calls if label == scheme]
        assert all(total == 1000 for _, total in mine), mine  # 1 ms in us
        dones = [done for done, _ in mine]
        assert dones == sorted(set(dones)) and dones[-1] == 1000, dones
        assert len(dones) <= 101, len(dones)  # at most once per percent, and the start


def test_a_sweep_reports_every_point_once_on_either_backend_shape():
    calls = []
    t = dctc.sweep(SCENARIO, {"seed": [1, 2, 3]}, jobs=2, progress=lambda *a: calls.append(a))
    quiet = dctc.sweep(SCENARIO, {"seed": [1, 2, 3]}, jobs=2, progress=False)
    assert_frame_equal(t, quiet)
    assert calls[0] == ("points", 0, 3), calls
    assert sorted(c[1] for c in calls) == [0, 1, 2, 3] and {c[2] for c in calls} == {3}, calls


def test_an_exception_in_the_callback_is_raised_when_the_run_ends():
    def boom(label, done, total):
        raise RuntimeError(f"stop at {label} {done}")

    with pytest.raises(RuntimeError, match="stop at dctcp 0"):
        dctc.run(SCENARIO, progress=boom)
    with pytest.raises(RuntimeError, match="stop at points 0"):
        dctc.sweep(SCENARIO, {"seed": [1, 2]}, progress=boom)


def test_the_bar_draws_on_stderr_when_asked_and_auto_stays_quiet_in_a_pipe(monkeypatch, capsys):
    dctc.run(SCENARIO, progress=True)
    err = capsys.readouterr().err
    assert "dctcp" in err and "newreno" in err and "us" in err, err
    # pytest captures stderr (not a terminal) and this is no notebook: "auto" draws nothing.
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    dctc.sweep(SCENARIO, {"seed": [1, 2]})
    assert capsys.readouterr().err == ""


def test_a_bad_progress_value_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match="progress='yes'"):
        dctc.run(SCENARIO, progress="yes")
