"""PlanBench-XL as a plugin: its metric family (accuracy, EGT, EDT, ITCR, UIRR and the rest)."""
