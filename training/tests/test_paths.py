"""Every `training/...` file that the docs, code, tests, benchmarks and model cards name exists, so
moving a file into the package cannot leave a dead path behind."""
import os
import re

from conftest import REPO

# Not "attention-lens training/export.py": that is the ONNX producer name the exporters write,
# kept as it was so files re-exported now equal the bundled ones byte for byte.
PATH = re.compile(r"(?<!attention-lens )training/[\w./-]*\w\.(?:py|sh|md|toml)\b")
SKIP_DIRS = {".git", "node_modules", "out", "dist", "__pycache__", "checkpoints", "logs", "init"}
TEXT = (".md", ".ts", ".mts", ".mjs", ".js", ".svelte", ".py", ".sh", ".json", ".toml", ".yml", ".yaml")


def mentions():
    found = {}
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            if not name.endswith(TEXT) or name == "package-lock.json":
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for m in PATH.finditer(f.read()):
                    found.setdefault(m.group(0), os.path.relpath(path, REPO))
    return found


def test_named_training_files_exist():
    found = mentions()
    assert "training/attention_lens/tokenizer.py" in found  # the scan reads what it should
    missing = {p: where for p, where in found.items() if not os.path.exists(os.path.join(REPO, p))}
    assert missing == {}
