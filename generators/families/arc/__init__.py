"""arc families (see generators/README.md)."""
