"""cite."""
