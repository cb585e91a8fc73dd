"""Runs zoo jobs (PAIR:KIND, see train_one.sh) in the given order, at most N at a time, where N is
read from training/logs/parallel (default 2) each time a job could start, so it can be lowered
while someone needs the CPU. Writes one line per finished job to training/logs/queue.log.

    /usr/bin/python3 training/run_queue.py en-fr:luong-general en-fr:local-p ...
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = os.path.join(HERE, "logs")


def parallel():
    try:
        with open(os.path.join(LOGS, "parallel")) as f:
            return max(1, int(f.read().strip()))
    except (OSError, ValueError):
        return 2


def note(msg):
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} {msg}"
    print(line, flush=True)
    with open(os.path.join(LOGS, "queue.log"), "a") as f:
        f.write(line + "\n")


def main():
    os.makedirs(LOGS, exist_ok=True)
    jobs = list(sys.argv[1:])
    running = {}
    failed = 0
    while jobs or running:
        for job, p in list(running.items()):
            if p.poll() is not None:
                note(f"{'done' if p.returncode == 0 else 'FAILED'} {job} (rc {p.returncode})")
                failed += p.returncode != 0
                del running[job]
        if jobs and len(running) < parallel():
            job = jobs.pop(0)
            note(f"start {job}")
            running[job] = subprocess.Popen(["bash", os.path.join(HERE, "train_one.sh"), job])
            continue
        time.sleep(5)
    note(f"queue finished, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
