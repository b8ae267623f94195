"""reports package of cascading-bandits (see DESIGN.md)."""
