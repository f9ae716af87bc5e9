"""TPS-Bench as a plugin: its metric family (completion, turns, time, tool selection)."""
