"""The doctor's tests (a package, so its conftest and test modules do not shadow tests/python's)."""
