"""CostBench as a plugin: its blocker effects (ban, reprice, hide composites, change preference),
its greedy agent, and its metric family (Cost Gap, AED/ANED, EMR, TCR, ITUR) with its figures."""
