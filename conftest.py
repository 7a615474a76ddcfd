"""Collection rules for the whole suite (``testpaths``: tests/ and the docstrings of wizard/)."""

import importlib.util
import multiprocessing

import pytest

# training is the only code that imports torch (the optional `train` extra)
collect_ignore_glob = [] if importlib.util.find_spec("torch") else ["wizard/training/*"]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Kill the worker processes a test left running, and name them.

    Python's exit joins the workers of every `ProcessPoolExecutor` still open; one blocked
    on its task queue's lock holds the finished run open for ever (seen once, session 26:
    a spawned worker of `tests/ai/pool/test_inference.py` that never ran a task). The run's
    results are already reported; this keeps it from hanging and says what was left.
    """
    leftovers = multiprocessing.active_children()
    for child in leftovers:
        child.kill()
        child.join(5)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if leftovers and reporter is not None:
        reporter.write_line(f"killed {len(leftovers)} worker process(es) the tests left "
                            f"running: {', '.join(str(c.pid) for c in leftovers)}", yellow=True)
