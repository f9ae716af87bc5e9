"""TPS-Bench: tasks made of subtasks (fan-out), and the slow, outage and swap blocker effects."""
