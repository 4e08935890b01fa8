"""docs/notebooks/lessons.ipynb runs from top to bottom (nbclient, a fresh kernel): no cell
fails (its asserts check the lessons' numbers), and every chart cell shows capsim plot's SVG
inline."""

import nbclient
import nbformat

import capsim
from conftest import REPO, cli_ok

NOTEBOOK = REPO / "docs" / "notebooks" / "lessons.ipynb"


def test_the_lessons_notebook_runs_and_draws_its_charts(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # The committed notebook carries no outputs: what it shows is what this run makes.
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={
        "metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    charts = {}
    for c in nb.cells:
        if c.cell_type == "code" and c.source.startswith("capsim.plot("):
            svgs = [o["data"]["image/svg+xml"] for o in c.outputs if "image/svg+xml" in o.get("data", {})]
            assert len(svgs) == 1, c.source
            charts[c.source] = svgs[0]
    assert len(charts) >= 6
    # The inline chart is the command line's picture of the same flags.
    assert charts['capsim.plot("autoscale", threshold=[2, 5])'] == cli_ok(
        "plot", "autoscale", "--threshold", "2,5", "-o", "-").decode()
    assert charts['capsim.plot("consumers", consumers=[1, 2, 4, 8], slots=2)'] == capsim.plot(
        "consumers", consumers=[1, 2, 4, 8], slots=2).svg
