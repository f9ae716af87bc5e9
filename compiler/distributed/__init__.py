"""Runs and compiles spread over a Ray cluster (`pip install 'scn-compiler[ray]'`).

`scn run --backend ray` plays episodes on Ray actors (`scn.distributed.runs`), with a bound on
the model requests in flight per endpoint shared by every worker (`scn.distributed.limits`);
`scn sweep` runs a grid of such runs as one job (`scn.distributed.sweep`). The driver (the
machine that typed the command) keeps every file: it reads the bundle, ships its bytes through
Ray's object store, and writes the trajectory files; workers hold nothing that outlives the job.

Ray is imported only inside these modules, so the rest of scn works without it installed.
"""
