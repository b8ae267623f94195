"""``python -m cascading_bandits.reports.cli``: the ``cascading`` command."""

import sys

from cascading_bandits.reports.cli import main

sys.exit(main())
