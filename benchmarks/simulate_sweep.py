"""Wall time of the paper's experiments (table1 + table2 + dbn) at n = 1e5, 20 runs, from scratch.

    python benchmarks/simulate_sweep.py [--workers N] [--runs R] [--horizon N]

Same as ``cascading bench --what sweep``.
"""

import sys

from cascading_bandits.reports.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "--what", "sweep", *sys.argv[1:]]))
