"""scn: a declarative scenario compiler for tool-use agent benchmarks."""

__version__ = "0.1.0"
