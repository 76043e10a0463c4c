"""Shared library of the messaging gateway: used by every function, the session host and the tests."""

__version__ = "0.1.0"
