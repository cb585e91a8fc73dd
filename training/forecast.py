"""Train, measure and export one forecaster (attention_lens/forecast.py has the options).

    /usr/bin/python3 training/forecast.py --kind luong-general   # or local-p, none
"""
from attention_lens.forecast import main

if __name__ == "__main__":
    main()
