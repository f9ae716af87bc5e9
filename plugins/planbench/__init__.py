"""PlanBench-XL as a plugin: the retrieval protocol with its retriever, path-preserving blocking
and oracle, and its metric family (accuracy, EGT, EDT, ITCR, UIRR and the rest)."""
