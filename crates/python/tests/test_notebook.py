"""The notebooks in examples/ run from top to bottom (nbclient), so they never rot."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.ipynb")), ids=lambda p: p.name)
def test_the_notebook_runs_and_draws_its_figure(path):
    nb = nbformat.read(path, as_version=4)
    # A notebook in the repository carries no outputs: they would go stale.
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # The figure reached the page: a PNG from matplotlib's inline backend.
    assert any("image/png" in o.get("data", {}) for o in outputs), path


def test_there_is_a_notebook():
    assert sorted(EXAMPLES.glob("*.ipynb")), EXAMPLES
