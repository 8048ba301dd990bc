"""dctc from Python: run traffic-control scenarios and sweeps, get DataFrames back.

    import dctc
    r = dctc.run("scenarios/demo.toml")
    r.flows          # one row per flow (pandas DataFrame)
    r.summary        # summary.json as a dict
    t = dctc.sweep("scenarios/demo.toml", grid={"workload[0].load": [0.2, 0.4], "seed": range(1, 4)})

Scenarios are read and checked by the same code as the ``dctc`` command line, so a bad key
raises :class:`ScenarioError` with the same file, key path and reason as ``dctc run`` prints.
Runs and sweeps release the GIL; the same scenario and seed give the same tables, byte for
byte, whatever the backend or the number of workers. Both show a progress bar (tqdm) in a
terminal or a notebook, or report to a callback: see ``progress=``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Tuple, Union

import pyarrow as pa

from . import _dctc
from ._dctc import DctcError, ScenarioError

__all__ = ["run", "sweep", "load", "RunResult", "DctcError", "ScenarioError"]

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any], "_dctc.Scenario"]

_FRAMES = ("pandas", "polars", "arrow")

#: ``progress=``: ``"auto"`` (a bar when stderr is a terminal or in a notebook), ``True`` (a
#: bar), ``False`` (nothing), or a callable ``f(label, done, total)``.
Progress = Union[bool, str, Callable[[str, int, int], object]]


def _interactive() -> bool:
    """Whether a person is likely watching: stderr is a terminal, or this is a notebook."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


class _Bars:
    """A tqdm bar per phase: ``(label, done, total)`` calls as the native code makes them."""

    def __init__(self, unit: str) -> None:
        try:
            import ipywidgets  # noqa: F401  (tqdm.auto draws widgets only with it)
            from tqdm.auto import tqdm
        except ImportError:
            from tqdm import tqdm
        self._tqdm = tqdm
        self._unit = unit
        self._label: Optional[str] = None
        self._bar: Any = None

    def __call__(self, label: str, done: int, total: int) -> None:
        if label != self._label or self._bar is None:
            self.close()
            self._label = label
            self._bar = self._tqdm(
                total=total, desc=label, unit=self._unit, unit_scale=self._unit != "point",
                leave=False, file=sys.stderr,
            )
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _reporter(
    progress: Progress, unit: str
) -> Tuple[Optional[Callable[[str, int, int], object]], Callable[[], None]]:
    """The callback for the native code and what to call when the work ends, for
    ``progress=`` (``unit``: what the bar counts)."""
    if callable(progress) and not isinstance(progress, bool):
        return progress, lambda: None
    if progress is False or (progress == "auto" and not _interactive()):
        return None, lambda: None
    if progress is not True and progress != "auto":
        raise ValueError(
            f'progress={progress!r}: choose "auto", True, False or a function f(label, done, total)'
        )
    bars = _Bars(unit)
    return bars, bars.close


def load(scenario: ScenarioLike, *, seed: Optional[int] = None) -> "_dctc.Scenario":
    """Reads and checks a scenario, as ``dctc validate`` does, without running it.

    ``scenario`` is a path to a TOML file, TOML text (a string holding a newline or ``=``
    that is not an existing file), a dict shaped like the TOML file, or an already loaded
    scenario. ``seed`` overrides the scenario's seed. Raises :class:`ScenarioError` naming the
    key path and the reason for a bad key or value, :class:`DctcError` for anything else.
    """
    if isinstance(scenario, _dctc.Scenario):
        if seed is not None and seed != scenario.seed:
            raise ValueError("seed= cannot change an already loaded scenario; load it again")
        return scenario
    if isinstance(scenario, Mapping):
        return _dctc.load_dict(dict(scenario), seed)
    if isinstance(scenario, os.PathLike):
        return _dctc.load_path(os.fspath(scenario), seed)
    if isinstance(scenario, str):
        if os.path.isfile(scenario) or not ("\n" in scenario or "=" in scenario):
            return _dctc.load_path(scenario, seed)
        return _dctc.load_text(scenario, "<string>", seed)
    raise TypeError(
        f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}"
    )


def _frame(table: pa.Table, dataframe: str) -> Any:
    if dataframe == "pandas":
        return table.to_pandas()
    if dataframe == "polars":
        import polars as pl

        return pl.from_arrow(table)
    if dataframe == "arrow":
        return table
    raise ValueError(f"dataframe={dataframe!r}: choose one of {', '.join(_FRAMES)}")


class RunResult:
    """What one run produced, in memory: what ``dctc run`` writes to ``out/<name>/``.

    ``.flows``, ``.ports`` and ``.queues`` are DataFrames (pandas, polars or a pyarrow
    Table, as ``dataframe=`` asked) of ``flows.csv``, ``ports.csv`` and ``queues.csv``, or
    ``None`` when the run has no such table (the flow engine has no ports; queues need
    ``[output] queue_sample_us``). Every table is in ``.tables`` by name, as a pyarrow Table.
    A table becomes Arrow the first time it is asked for, straight from the engine's typed
    columns (no CSV in between): integers are int64, numbers float64 (NaN/null where a record
    has none, e.g. the FCT of an unfinished flow), booleans bool, text str; a column keeps its
    type whatever its values (``pandas.read_csv`` would guess int64 for a float column whose
    values happen to be whole). The values are the engine's, also where the CSV rounds them
    (``ports.csv`` writes ``mean_queue_bytes`` to 0.1 B and ``utilization`` to 1e-6).
    """

    def __init__(
        self, summary: str, tables: Iterable[tuple], report_html: str, dataframe: str
    ) -> None:
        if dataframe not in _FRAMES:
            raise ValueError(f"dataframe={dataframe!r}: choose one of {', '.join(_FRAMES)}")
        self._summary_json = summary
        self._raw = dict(tables)
        self._arrow: Dict[str, pa.Table] = {}
        self.report_html: str = report_html
        self.dataframe = dataframe

    def _table(self, name: str) -> Optional[pa.Table]:
        if name not in self._arrow:
            raw = self._raw.get(name)
            if raw is None:
                return None
            self._arrow[name] = pa.Table.from_batches([raw.to_arrow()])
        return self._arrow[name]

    @property
    def tables(self) -> Dict[str, pa.Table]:
        """Every table of the run by name (``flows``, ``ports``, ``queues``, ...)."""
        return {name: self._table(name) for name in self._raw}

    @property
    def summary(self) -> Dict[str, Any]:
        """``summary.json`` as a dict (a fresh copy each time)."""
        return json.loads(self._summary_json)

    def table(self, name: str) -> Any:
        """The table ``name`` (``flows``, ``ports``, ``queues``, ``coflows``, ...) as a
        DataFrame, or ``None`` when the run has none."""
        t = self._table(name)
        return None if t is None else _frame(t, self.dataframe)

    @property
    def flows(self) -> Any:
        """``flows.csv``: one row per flow and scheme."""
        return self.table("flows")

    @property
    def ports(self) -> Any:
        """``ports.csv``: one row per port and scheme."""
        return self.table("ports")

    @property
    def queues(self) -> Any:
        """``queues.csv``: sampled queue lengths."""
        return self.table("queues")

    def __repr__(self) -> str:
        return f"<dctc.RunResult tables: {', '.join(self._raw)}>"


def run(
    scenario: ScenarioLike,
    *,
    seed: Optional[int] = None,
    dataframe: str = "pandas",
    progress: Progress = "auto",
) -> RunResult:
    """Runs a scenario, as ``dctc run`` does, and returns its results in memory.

    ``scenario``: see :func:`load`. ``seed`` overrides the scenario's seed. ``dataframe``:
    ``"pandas"`` (default), ``"polars"`` or ``"arrow"`` (pyarrow Tables) for the tables.
    ``progress``: ``"auto"`` (default) draws a bar of simulated time per scheme when stderr
    is a terminal or in a notebook; ``True`` always, ``False`` never; a callable is called as
    ``f(label, done, total)`` (the scheme, simulated microseconds done and to run) at the start
    of each scheme and at most once per percent of it. An exception it raises is raised when
    the run ends (the run itself cannot be stopped midway). Nothing is written to disk.
    """
    if dataframe not in _FRAMES:
        raise ValueError(f"dataframe={dataframe!r}: choose one of {', '.join(_FRAMES)}")
    s = load(scenario, seed=seed)
    report, close = _reporter(progress, "us")
    try:
        summary, tables, html = _dctc.run(s, report)
    finally:
        close()
    return RunResult(summary, tables, html, dataframe)


def _scalar(v: Any) -> Any:
    # numpy scalars (np.float64(0.2), np.int64(3)) become Python ones.
    return v.item() if hasattr(v, "item") and not isinstance(v, (str, bytes)) else v


def sweep(
    scenario: ScenarioLike,
    grid: Mapping[str, Iterable[Any]],
    *,
    backend: str = "local",
    jobs: Optional[int] = None,
    address: Optional[str] = None,
    dataframe: str = "pandas",
    progress: Progress = "auto",
) -> Any:
    """Runs ``scenario`` for every combination of ``grid``'s values and returns the sweep
    table, the same as ``dctc sweep``'s ``sweep.csv``: one row per point and scheme, the swept
    values, ``scheme``, then every numeric metric of the scheme's summary (dotted names, e.g.
    ``fct_slowdown.overall.p99``).

    ``grid`` maps scalar key paths of the scenario (``"seed"``, ``"workload[0].load"``,
    ``"schemes[1].ecn_k_bytes"``) to their values; the last key varies fastest. Every point is
    built and checked before any runs: a bad key or value raises :class:`ScenarioError`.

    ``backend="local"`` runs the points on ``jobs`` threads (default: all cores).
    ``backend="ray"`` runs each point as a Ray task and gathers the tasks' Arrow tables; it
    connects to ``address`` (e.g. ``"ray://head:10001"`` or ``"auto"``) or starts a local Ray
    when ``address`` is None and Ray is not initialized yet. Both give the same table.

    ``progress``: a bar over the points (``"auto"``: when stderr is a terminal or in a
    notebook; ``True``, ``False``), or a callable called as ``f("points", finished, total)``
    before the first point and after each one.
    """
    if dataframe not in _FRAMES:
        raise ValueError(f"dataframe={dataframe!r}: choose one of {', '.join(_FRAMES)}")
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError("grid: give a dict of key path -> values, with at least one key")
    axes = []
    for key, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ValueError(f'grid["{key}"]: give a list of values, not {values!r}')
        axes.append((key, [_scalar(v) for v in values]))
    if backend not in ("local", "ray"):
        raise ValueError(f"backend={backend!r}: choose \"local\" or \"ray\"")
    s = load(scenario)
    plan = _dctc.plan(s, axes)
    report, close = _reporter(progress, "point")
    try:
        if backend == "local":
            batch = plan.run_local(jobs, report)
        else:
            from ._ray import run_plan

            batch = run_plan(plan, address, report)
    finally:
        close()
    return _frame(pa.Table.from_batches([batch]), dataframe)
