"""CostBench (cost-optimal planning with composite tools): its plugin modules."""
