"""PlanBench-XL (planning over large typed tool sets with noisy and blocker siblings): its plugin modules."""
