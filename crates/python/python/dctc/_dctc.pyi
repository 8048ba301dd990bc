"""Type hints of the native module ``dctc._dctc`` (use the functions of ``dctc`` instead)."""

import os
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import pyarrow as pa

class DctcError(Exception):
    """A scenario or sweep dctc cannot run; the message is the command line's."""

class ScenarioError(DctcError):
    """A scenario key with a bad value."""

    file: str
    """The scenario file (``<string>`` or ``<dict>`` for text and dicts)."""
    key: str
    """Dotted key path, e.g. ``workload[0].load`` (empty for the file as a whole)."""
    reason: str
    """What is wrong."""

class Scenario:
    """A checked scenario."""

    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...

class Table:
    """A run's table as the engine's typed columns."""

    def to_arrow(self) -> pa.RecordBatch:
        """The table as Arrow: integers as int64, numbers as float64 (null where absent),
        booleans, text as utf8."""
    def to_csv(self) -> bytes:
        """The table as ``dctc run`` writes it."""
    def __len__(self) -> int: ...

class Plan:
    """A planned sweep: every point built and checked."""

    def __len__(self) -> int: ...
    def keys(self) -> List[str]: ...
    def point_name(self, i: int) -> str: ...
    def point_source(self, i: int) -> Tuple[str, os.PathLike, os.PathLike, int]: ...
    def run_local(
        self,
        jobs: Optional[int] = None,
        progress: Optional[Callable[[str, int, int], object]] = None,
    ) -> pa.RecordBatch: ...
    def merge(self, batches: Sequence[pa.RecordBatch]) -> pa.RecordBatch: ...

def load_path(path: Union[str, os.PathLike], seed: Optional[int] = None) -> Scenario: ...
def load_text(text: str, label: str, seed: Optional[int] = None) -> Scenario: ...
def load_dict(doc: dict, seed: Optional[int] = None) -> Scenario: ...
def run(
    scenario: Scenario, progress: Optional[Callable[[str, int, int], object]] = None
) -> Tuple[str, List[Tuple[str, Table]], str]: ...
def plan(scenario: Scenario, grid: List[Tuple[str, List[Any]]]) -> Plan: ...
def run_point(
    text: str, path: Union[str, os.PathLike], base_dir: Union[str, os.PathLike], seed: int
) -> pa.RecordBatch: ...
