"""No module in training/ shadows a standard-library module (issue 42).

Python puts a script's own folder first on `sys.path`, so the job runner, when it was named
queue.py, replaced the standard library's `queue` for every script in training/ (torch's exporter
imports `from queue import Queue` and failed). pytest puts training/ (conftest.py) and training/tests/ on the path the same way, and
attention_lens/ is checked too, so no module there takes a standard-library name either."""
import os
import sys

from conftest import TRAINING

FOLDERS = ("", "attention_lens", "tests")


def module_names(folder: str) -> dict[str, str]:
    """The top-level names `import X` would find in `folder`: X.py files and X/ packages."""
    names = {}
    for entry in os.listdir(folder):
        path = os.path.join(folder, entry)
        if entry.endswith(".py") and os.path.isfile(path):
            names[entry[:-3]] = path
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            names[entry] = path
    return names


def test_no_module_in_training_shadows_the_standard_library():
    seen = {}
    for sub in FOLDERS:
        seen.update(module_names(os.path.join(TRAINING, sub)))
    assert "hf_test_models" in seen and "tokenizer" in seen  # the scan reads what it should
    shadowing = sorted(os.path.relpath(p, TRAINING) for n, p in seen.items() if n in sys.stdlib_module_names)
    assert shadowing == []


def test_queue_is_the_standard_library_one():
    import queue  # with training/ on the path (conftest.py), as a script in training/ has it

    assert hasattr(queue, "Queue") and os.path.dirname(queue.__file__) != TRAINING
