"""simulate package of cascading-bandits (see DESIGN.md)."""
