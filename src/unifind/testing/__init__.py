"""Fakes and conformance suites shipped for users' own plug-ins and tests."""
