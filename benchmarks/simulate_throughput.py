"""Run-steps per second of the simulator (figures for the README; no assertions).

    python benchmarks/simulate_throughput.py            # L = 16 and 2048, K = 4, all policies
    python benchmarks/simulate_throughput.py --plain    # also the plain (non-lazy) KL-UCB loop

Same as ``cascading bench --what throughput``.
"""

import sys

from cascading_bandits.reports.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "--what", "throughput", *sys.argv[1:]]))
