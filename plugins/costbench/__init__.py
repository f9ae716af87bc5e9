"""CostBench as a plugin: its metric family (Cost Gap, AED/ANED, EMR, TCR, ITUR) and figures."""
