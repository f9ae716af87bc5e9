"""The CCTU plugin (Ye et al., 2026, "CCTU: A Benchmark for Tool Use under Complex Constraints"):
its twelve constraint kinds with their checks, the `cctu` task generator, and its metric family
(solve rates, violation and self-correction rates).

Registered through the `scn` entry-point group like any third-party plugin; the scenario itself
is `domains/cctu/cases.scn`, its taxonomy `domains/cctu/vocab/taxonomy.scn`.
"""
