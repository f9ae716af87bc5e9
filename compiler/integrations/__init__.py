"""Bridges from scn to frameworks users already run evaluations in (each an optional extra).

A bridge adapts the bundle format and the runtime (`scn.runtime`, `scn.scoring`) to another
framework's interfaces; the core never imports one.
"""
