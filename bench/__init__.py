"""Benchmarks of the gateway: ``python -m bench.coldstart`` (see bench/README.md)."""
