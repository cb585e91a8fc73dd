"""The training side of Attention Lens: data, tokenizers, models, export to the one-file ONNX
contract (docs/model-format.md), BLEU, forecasters. The scripts beside this folder
(training/train.py, reexport.py, ...) are its entry points; run them with /usr/bin/python3."""
import os

# training/ (the folder holding this package): checkpoints, logs and the zoo-next staging folder live there.
TRAINING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.join(TRAINING, "..")
# The data sets: $AL_DATASETS, else ../shared/datasets beside the repository (../../shared/datasets from training/).
DATASETS = os.environ.get("AL_DATASETS", os.path.join(REPO, "..", "shared", "datasets"))
STAGE = os.path.join(TRAINING, "zoo-next")
