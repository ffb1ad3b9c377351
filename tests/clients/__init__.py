"""Readers' own tools, run as they run for readers, for the tests to read the
anthology's answers with."""
