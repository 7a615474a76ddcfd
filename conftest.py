"""Collection rules for the whole suite (``testpaths``: tests/ and the docstrings of wizard/)."""

import importlib.util

# training is the only code that imports torch (the optional `train` extra)
collect_ignore_glob = [] if importlib.util.find_spec("torch") else ["wizard/training/*"]
