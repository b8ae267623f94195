"""Data read by the claims: ``tightest_instances.json`` holds, for each registered bound, the
tightest instance a stored falsification search found (``cascading search --objective bound``);
:mod:`verify.claims_bounds` adds it to the bound's Monte-Carlo validity claim."""
