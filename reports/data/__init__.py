"""Data typed from the paper (Kveton et al., ICML 2015): ``paper_tables.json`` holds Tables 1 and 2
and the Figure 1 ratio, each with its citation; :mod:`reports.paper` loads and re-parses them."""
