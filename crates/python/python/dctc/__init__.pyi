"""Type hints of ``dctc``: run traffic-control scenarios and sweeps, get DataFrames back."""

import os
from typing import Any, Callable, Dict, Iterable, Literal, Mapping, Optional, Union

import pyarrow as pa

from ._dctc import DctcError as DctcError
from ._dctc import Scenario
from ._dctc import ScenarioError as ScenarioError

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any], Scenario]
"""A path to a TOML file, TOML text, a dict shaped like the file, or a loaded scenario."""

Frame = Literal["pandas", "polars", "arrow"]

def load(scenario: ScenarioLike, *, seed: Optional[int] = None) -> Scenario:
    """Reads and checks a scenario without running it; raises ScenarioError for a bad key."""

class RunResult:
    """What one run produced, in memory."""

    @property
    def tables(self) -> Dict[str, pa.Table]:
        """Every table of the run by name (``flows``, ``ports``, ``queues``, ...)."""
    report_html: str
    """``report.html``."""
    dataframe: Frame
    @property
    def summary(self) -> Dict[str, Any]:
        """``summary.json`` as a dict."""
    def table(self, name: str) -> Any:
        """The table ``name`` as a DataFrame, or None."""
    @property
    def flows(self) -> Any:
        """``flows.csv`` as a DataFrame (pandas, polars or pyarrow), or None."""
    @property
    def ports(self) -> Any:
        """``ports.csv`` as a DataFrame, or None."""
    @property
    def queues(self) -> Any:
        """``queues.csv`` as a DataFrame, or None."""

Progress = Union[bool, Literal["auto"], Callable[[str, int, int], object]]

def run(
    scenario: ScenarioLike,
    *,
    seed: Optional[int] = None,
    dataframe: Frame = "pandas",
    progress: Progress = "auto",
) -> RunResult:
    """Runs a scenario as ``dctc run`` does, in memory."""

def sweep(
    scenario: ScenarioLike,
    grid: Mapping[str, Iterable[Any]],
    *,
    backend: Literal["local", "ray"] = "local",
    jobs: Optional[int] = None,
    address: Optional[str] = None,
    dataframe: Frame = "pandas",
    progress: Progress = "auto",
) -> Any:
    """Runs every combination of ``grid``'s values; returns the sweep table (as sweep.csv)."""
