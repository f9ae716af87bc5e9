"""Scoring: each benchmark family's published metrics, computed from trajectory files."""
