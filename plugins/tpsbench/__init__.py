"""TPS-Bench as a plugin: tasks made of subtasks (fan-out), the slow, outage and swap blocker
effects, and its metric family (completion, turns, time, tool selection)."""
