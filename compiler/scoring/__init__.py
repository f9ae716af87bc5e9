"""Scoring trajectory files: the general metrics, and the metric families plugins register.

The core names no benchmark: `families` picks each record's families from its scenario's
`harness { metrics ... }` and calls the scorers plugins registered with
`scn_register_metric_families`; `report` compares runs and draws each family's figures. It reads
trajectories (`scn.trajectory`) and bundles, never the runtime or the compiler's front end.
"""
