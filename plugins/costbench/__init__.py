"""CostBench: its blocker effects (ban, reprice, hide composites, change preference) and agents."""
