"""The runtime: load a bundle, play agents against its tasks, write trajectories."""
