"""Makes `attention_lens` importable (training/ on the path), as the scripts beside it have it."""
import os
import sys

TRAINING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TRAINING)
sys.path.insert(0, TRAINING)
