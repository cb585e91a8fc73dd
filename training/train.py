"""Train one model, measure it, export it (attention_lens/train.py has the options).

    /usr/bin/python3 training/train.py --pair en-fr --kind bahdanau [--resume] [--stage train|eval|all]
"""
from attention_lens.train import main

if __name__ == "__main__":
    main()
