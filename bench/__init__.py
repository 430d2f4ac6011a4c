"""Benchmarks: each prints its figures and its ratio to a baseline measured in the same run."""
