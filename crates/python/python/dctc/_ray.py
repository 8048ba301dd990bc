"""The Ray backend of :func:`dctc.sweep`: one Ray task per point, each returning the point's
rows as an Arrow record batch (no files on a shared disk)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from . import _dctc


def _point(text: str, path: str, base_dir: str, seed: int) -> Any:
    # Runs in a Ray worker, which imports dctc from its own environment.
    return _dctc.run_point(text, path, base_dir, seed)


def run_plan(
    plan: "_dctc.Plan",
    address: Optional[str],
    progress: Optional[Callable[[str, int, int], object]] = None,
) -> Any:
    """Runs every point of ``plan`` as a Ray task and merges the batches in point order,
    calling ``progress("points", finished, total)`` before the first and after each point."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            'backend="ray" needs Ray: pip install "ray[default]"'
        ) from e
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1)(_point)
    refs = [task.remote(*plan.point_source(i)) for i in range(len(plan))]
    if progress is not None:
        progress("points", 0, len(refs))
        pending, finished = list(refs), 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            ray.get(ready)  # a failed point raises now, not after the others
            finished += len(ready)
            progress("points", finished, len(refs))
    return plan.merge(ray.get(refs))
