"""PlanBench-XL (planning over large typed tool sets, noisy and blocker siblings): its plugin
modules."""
