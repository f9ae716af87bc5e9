"""PlanBench-XL: the retrieval protocol, its retriever, path-preserving blocking and oracle."""
