"""CCTU as a plugin: its metric family (solve rates, violation and self-correction rates)."""
